{{/*
The audit sinks' variables and Secret volumes (packages/audit-export), the same in the control-plane and platform
charts. Called with (list <audit values> <their path, for messages>). A sink's Secret or headers without its URL
would be ignored by the service too: refused here, naming the URL to set.
*/}}
{{- define "gsp.auditSinkEnv" -}}
{{- $audit := index . 0 -}}
{{- $at := index . 1 -}}
{{- with $audit.webhook }}
{{- if and (not .url) (or .existingSecret .ca.existingSecret) }}
{{- fail (printf "%s.webhook.existingSecret or ca.existingSecret is set but %s.webhook.url is not" $at $at) }}
{{- end }}
{{- if .url }}
- name: AUDIT_WEBHOOK_URL
  value: {{ .url | quote }}
{{- if and .existingSecret .secretKey }}
- name: AUDIT_WEBHOOK_SECRET_FILE
  value: /etc/gsp/audit-webhook/{{ .secretKey }}
{{- end }}
{{- if and .existingSecret .tokenKey }}
- name: AUDIT_WEBHOOK_TOKEN_FILE
  value: /etc/gsp/audit-webhook/{{ .tokenKey }}
{{- end }}
{{- if .ca.existingSecret }}
- name: AUDIT_WEBHOOK_CA_FILE
  value: /etc/gsp/audit-webhook-ca/{{ .ca.key }}
{{- end }}
{{- end }}
{{- end }}
{{- with $audit.otlp }}
{{- if and (not .url) (or .existingSecret .headers) }}
{{- fail (printf "%s.otlp.headers or existingSecret is set but %s.otlp.url is not" $at $at) }}
{{- end }}
{{- if .url }}
- name: AUDIT_OTLP_URL
  value: {{ .url | quote }}
{{- if .existingSecret }}
- name: AUDIT_OTLP_HEADERS_FILE
  value: /etc/gsp/audit-otlp/{{ .headersKey }}
{{- else if .headers }}
- name: AUDIT_OTLP_HEADERS
  value: {{ .headers | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- if or $audit.webhook.url $audit.otlp.url }}
- name: AUDIT_EXPORT_TIMEOUT
  value: {{ $audit.export.timeout | quote }}
- name: AUDIT_EXPORT_BATCH_MAX
  value: {{ int64 $audit.export.batchMax | quote }}
- name: AUDIT_EXPORT_BACKOFF_BASE
  value: {{ $audit.export.backoffBase | quote }}
- name: AUDIT_EXPORT_BACKOFF_MAX
  value: {{ $audit.export.backoffMax | quote }}
{{- end }}
{{- end -}}

{{- define "gsp.auditVolumes" -}}
{{- with .webhook }}
{{- if and .url .existingSecret (or .secretKey .tokenKey) }}
- name: audit-webhook
  secret:
    secretName: {{ .existingSecret }}
    items:
      {{- with .secretKey }}
      - key: {{ . }}
        path: {{ . }}
      {{- end }}
      {{- with .tokenKey }}
      - key: {{ . }}
        path: {{ . }}
      {{- end }}
{{- end }}
{{- if and .url .ca.existingSecret }}
- name: audit-webhook-ca
  secret:
    secretName: {{ .ca.existingSecret }}
    items:
      - key: {{ .ca.key }}
        path: {{ .ca.key }}
{{- end }}
{{- end }}
{{- with .otlp }}
{{- if and .url .existingSecret }}
- name: audit-otlp
  secret:
    secretName: {{ .existingSecret }}
    items:
      - key: {{ .headersKey }}
        path: {{ .headersKey }}
{{- end }}
{{- end }}
{{- end -}}

{{- define "gsp.auditMounts" -}}
{{- with .webhook }}
{{- if and .url .existingSecret (or .secretKey .tokenKey) }}
- name: audit-webhook
  mountPath: /etc/gsp/audit-webhook
  readOnly: true
{{- end }}
{{- if and .url .ca.existingSecret }}
- name: audit-webhook-ca
  mountPath: /etc/gsp/audit-webhook-ca
  readOnly: true
{{- end }}
{{- end }}
{{- with .otlp }}
{{- if and .url .existingSecret }}
- name: audit-otlp
  mountPath: /etc/gsp/audit-otlp
  readOnly: true
{{- end }}
{{- end }}
{{- end -}}

{{/* The audit sinks' Secrets and keys as "secret/key" references (JSON), for checksum/secret. */}}
{{- define "gsp.auditSecretRefs" -}}
{{- $refs := list -}}
{{- with .webhook }}
{{- if .url }}
{{- if .existingSecret }}
{{- range list .secretKey .tokenKey | compact }}{{ $refs = append $refs (printf "%s/%s" $.webhook.existingSecret .) }}{{ end }}
{{- end }}
{{- with .ca.existingSecret }}{{ $refs = append $refs (printf "%s/%s" . $.webhook.ca.key) }}{{ end }}
{{- end }}
{{- end }}
{{- if and .otlp.url .otlp.existingSecret }}{{ $refs = append $refs (printf "%s/%s" .otlp.existingSecret .otlp.headersKey) }}{{ end }}
{{- toJson $refs -}}
{{- end -}}
