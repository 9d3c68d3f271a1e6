{{/*
helm create's rule, both ways: a release named after the chart (gsp-control-plane-eu) is the name
alone, and so is the chart's name when the release name is its first words (release gsp of
gsp-control-plane), instead of gsp-gsp-control-plane.
Cut so that <fullname>-metrics, the longest Service name, stays a 63-character DNS label.
*/}}
{{- define "gsp-control-plane.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 55 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 55 | trimSuffix "-" -}}
{{- else if hasPrefix (printf "%s-" .Release.Name) .Chart.Name -}}
{{- .Chart.Name | trunc 55 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 55 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "gsp-control-plane.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "gsp-control-plane.labels" -}}
{{ include "gsp-control-plane.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "gsp-control-plane.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "gsp-control-plane.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Whether a sink is configured: only then the spool, its volume and the AUDIT_* variables. */}}
{{- define "gsp-control-plane.auditOn" -}}
{{- if or .Values.audit.webhook.url .Values.audit.otlp.url }}true{{ end -}}
{{- end -}}

{{/*
The spool volume's size: audit.spool.volume.sizeLimit, else in bytes the bound (which counts the records' bytes, not the filesystem's blocks, the
position files or a file being replaced), a quarter more for those, and 32 MiB for the batches a sink refused for
good (kept under poison/, outside the bound). An emptyDir past its sizeLimit gets the pod evicted.
*/}}
{{- define "gsp-control-plane.spoolSize" -}}
{{- with .Values.audit.spool.volume.sizeLimit -}}
{{- . -}}
{{- else -}}
{{- $max := int64 .Values.audit.spool.maxBytes -}}
{{- add $max (div $max 4) 33554432 -}}
{{- end -}}
{{- end -}}

{{/* What no extraEnv may set, with the value to set instead: credentials stay in Secrets, the spool's
directory is the volume the chart mounts, the modes and the panel's sign-in are the chart's to check. */}}
{{- define "gsp-control-plane.reservedEnv" -}}
AUDIT_WEBHOOK_SECRET: "audit.webhook.existingSecret and secretKey (credentials stay in Secrets)"
AUDIT_WEBHOOK_TOKEN: "audit.webhook.existingSecret and tokenKey (credentials stay in Secrets)"
AUDIT_SPOOL_DIR: "audit.spool.volume or audit.spool.persistence (the chart mounts the spool)"
AUDIT_WEBHOOK_URL: "audit.webhook.url (a sink needs the spool the chart mounts with it)"
AUDIT_OTLP_URL: "audit.otlp.url (a sink needs the spool the chart mounts with it)"
AUTH_BASIC_ENABLED: "auth.modes"
AUTH_APIKEY_ENABLED: "auth.modes"
AUTH_OIDC_ENABLED: "auth.modes"
AUTH_BASIC_PASSWORD: "auth.basic.existingSecret, with the password's bcrypt hash (credentials stay in Secrets)"
AUTH_BASIC_PASSWORD_FILE: "auth.basic.existingSecret, with the password's bcrypt hash"
AUTH_BASIC_PASSWORD_HASH: "auth.basic.existingSecret (credentials stay in Secrets)"
PANEL_PUBLIC_URL: "panel.publicUrl (or ingress.hostname, which it is derived from)"
PANEL_OIDC_CLIENT_ID: "panel.oidc.clientId"
PANEL_OIDC_CLIENT_SECRET: "panel.oidc.clientSecret.existingSecret (credentials stay in Secrets)"
PANEL_OIDC_CLIENT_SECRET_FILE: "panel.oidc.clientSecret.existingSecret"
{{- end -}}

{{/* PANEL_PUBLIC_URL: panel.publicUrl, else <the Ingress or HTTPRoute host>/panel/; "" when neither is known. */}}
{{- define "gsp-control-plane.panelPublicUrl" -}}
{{- if .Values.panel.publicUrl -}}
{{- .Values.panel.publicUrl -}}
{{- else -}}
{{- with include "gsp.exposedUrl" (list .Values.ingress .Values.httpRoute) }}{{ . }}/panel/{{ end -}}
{{- end -}}
{{- end -}}

{{/* The Secrets and keys the control plane reads, as JSON "secret/key" references for checksum/secret. */}}
{{- define "gsp-control-plane.secretRefs" -}}
{{- $refs := list -}}
{{- with .Values.redis.existingSecret }}{{ $refs = append $refs (printf "%s/%s" . $.Values.redis.urlKey) }}{{ end -}}
{{- if has "basic" .Values.auth.modes }}{{ $refs = append $refs (printf "%s/%s" .Values.auth.basic.existingSecret .Values.auth.basic.passwordHashKey) }}{{ end -}}
{{- with .Values.panel.oidc.clientSecret.existingSecret }}{{ $refs = append $refs (printf "%s/%s" . $.Values.panel.oidc.clientSecret.key) }}{{ end -}}
{{- if include "gsp-control-plane.auditOn" . }}{{ $refs = concat $refs (include "gsp.auditSecretRefs" .Values.audit | fromJsonArray) }}{{ end -}}
{{- toJson $refs -}}
{{- end -}}

{{/*
Fails when extraEnv repeats a variable the chart sets, or itself (server-side apply refuses duplicate names), or names
one the chart keeps to itself even when it does not set it. Called with (list <chart env> <extraEnv>) or with a third
element, a dict of those reserved names to the value to set instead. The same in every chart: a parent chart would
share one definition.
*/}}
{{- define "gsp.noDuplicateEnv" -}}
{{- $reserved := dict -}}
{{- if gt (len .) 2 }}{{ $reserved = index . 2 }}{{ end -}}
{{- $names := dict -}}
{{- range (index . 0) }}{{ $_ := set $names .name "chart" }}{{ end -}}
{{- range (index . 1) -}}
{{- if hasKey $reserved .name -}}
{{- fail (printf "extraEnv: %s may not be set here; set %s instead" .name (get $reserved .name)) -}}
{{- end -}}
{{- if hasKey $names .name -}}
{{- fail (printf "extraEnv: %s is already set%s; set it through its own value instead" .name (ternary " by the chart" " twice" (eq (get $names .name) "chart"))) -}}
{{- end -}}
{{- $_ := set $names .name "extra" -}}
{{- end -}}
{{- end -}}
