{{/*
helm create's rule, both ways: a release named after the chart (gsp-platform-eu) is the name
alone, and so is the chart's name when the release name is its first words (release gsp of
gsp-platform), instead of gsp-gsp-platform.
Cut so that the longest name made from it, <fullname>-cluster-proxy-metrics, stays a 63-character DNS label.
*/}}
{{- define "gsp-platform.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 41 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 41 | trimSuffix "-" -}}
{{- else if hasPrefix (printf "%s-" .Release.Name) .Chart.Name -}}
{{- .Chart.Name | trunc 41 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 41 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "gsp-platform.labels" -}}
app.kubernetes.io/part-of: {{ .Chart.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one component: call with (list $ "api-server"). */}}
{{- define "gsp-platform.selectorLabels" -}}
app.kubernetes.io/name: {{ index . 1 }}
app.kubernetes.io/instance: {{ (index . 0).Release.Name }}
{{- end -}}

{{- define "gsp-platform.image" -}}
{{- $root := index . 0 -}}
{{- printf "%s:%s" (index . 1).image.repository (default $root.Chart.AppVersion $root.Values.image.tag) -}}
{{- end -}}

{{/* The env pin as "", "true" or "false", whether the value was given as a string or a bool. */}}
{{- define "gsp-platform.pin" -}}
{{- $pin := .Values.cliAccess.pinned -}}
{{- if kindIs "invalid" $pin -}}
{{- else if not (has (toString $pin) (list "" "true" "false")) -}}
{{- fail (printf "cliAccess.pinned must be \"\", \"true\" or \"false\", got %q" (toString $pin)) -}}
{{- else -}}
{{- toString $pin -}}
{{- end -}}
{{- end -}}

{{/* What the API server and the proxy both read: the flag store, Redis and the pin. */}}
{{- define "gsp-platform.sharedEnv" -}}
- name: HOST
  value: "0.0.0.0"
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ required "database.existingSecret (a Secret with the PostgreSQL URL) is required" .Values.database.existingSecret }}
      key: {{ .Values.database.urlKey }}
{{- if .Values.redis.existingSecret }}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ .Values.redis.existingSecret }}
      key: {{ .Values.redis.urlKey }}
{{- else if .Values.redis.url }}
- name: REDIS_URL
  value: {{ .Values.redis.url | quote }}
{{- end }}
- name: REDIS_KEY_PREFIX
  value: {{ .Values.redis.keyPrefix | quote }}
- name: SERVICE_CACHE_FLAGS_TTL
  value: {{ .Values.flagsCacheTtl | quote }}
{{- with include "gsp-platform.pin" . }}
- name: SERVICE_CLI_ACCESS_ENABLED
  value: {{ . | quote }}
{{- end }}
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- end -}}

{{/* What no extraEnv may set, with the value to set instead: the pin must be the same in both processes, and the
flag provider and the console's sign-in are the chart's to check (an OFREP URL without its provider, or the other way
round, is refused, and so is a console half configured); audit credentials stay in Secrets. */}}
{{- define "gsp-platform.reservedEnv" -}}
SERVICE_CLI_ACCESS_ENABLED: "cliAccess.pinned, which pins the API server and the cluster proxy alike"
SERVICE_FLAGS_PROVIDER: "apiServer.flags.provider"
OFREP_URL: "apiServer.flags.ofrep.url"
OFREP_BEARER_TOKEN: "apiServer.flags.ofrep.bearerToken.existingSecret (credentials stay in Secrets)"
OFREP_BEARER_TOKEN_FILE: "apiServer.flags.ofrep.bearerToken.existingSecret"
CONSOLE_PUBLIC_URL: "apiServer.console.publicUrl (or apiServer.ingress.hostname, which it is derived from)"
CONSOLE_OIDC_CLIENT_ID: "apiServer.console.oidc.clientId"
CONSOLE_OIDC_CLIENT_SECRET: "apiServer.console.oidc.clientSecret.existingSecret (credentials stay in Secrets)"
CONSOLE_OIDC_CLIENT_SECRET_FILE: "apiServer.console.oidc.clientSecret.existingSecret"
AUDIT_WEBHOOK_SECRET: "apiServer.audit.webhook.existingSecret and secretKey (credentials stay in Secrets)"
AUDIT_WEBHOOK_TOKEN: "apiServer.audit.webhook.existingSecret and tokenKey (credentials stay in Secrets)"
AUTH_JWT_SECRET: "apiServer.auth.jwtSecret.existingSecret (credentials stay in Secrets)"
{{- end -}}

{{/*
CONSOLE_PUBLIC_URL: apiServer.console.publicUrl, else <the API server's Ingress or HTTPRoute host>/console/; "" when
neither is known.
*/}}
{{- define "gsp-platform.consolePublicUrl" -}}
{{- $api := .Values.apiServer -}}
{{- if $api.console.publicUrl -}}
{{- $api.console.publicUrl -}}
{{- else -}}
{{- with include "gsp.exposedUrl" (list $api.ingress $api.httpRoute) }}{{ . }}/console/{{ end -}}
{{- end -}}
{{- end -}}

{{/* The Secrets and keys both components read: "secret/key" references for checksum/secret. */}}
{{- define "gsp-platform.sharedSecretRefs" -}}
{{- $refs := list (printf "%s/%s" .Values.database.existingSecret .Values.database.urlKey) -}}
{{- with .Values.redis.existingSecret }}{{ $refs = append $refs (printf "%s/%s" . $.Values.redis.urlKey) }}{{ end -}}
{{- toJson $refs -}}
{{- end -}}

{{- define "gsp-platform.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 1000
runAsGroup: 1000
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "gsp-platform.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
{{- end -}}

{{- define "gsp-platform.scheduling" -}}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
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
