{{/*
What every chart shares: exposure (Ingress, HTTPRoute and the public URL they give), spread, network policy rules,
rollout checksums and scrape targets. The same file in each chart (deploy/test/charts.test.ts checks the copies): a
parent chart would hold one.
*/}}

{{/* The port an http(s) URL names, else 443 or 80. */}}
{{- define "gsp.urlPort" -}}
{{- $url := urlParse . -}}
{{- if regexMatch ":[0-9]+$" $url.host -}}
{{- regexFind "[0-9]+$" $url.host -}}
{{- else -}}
{{- ternary "443" "80" (eq $url.scheme "https") -}}
{{- end -}}
{{- end -}}

{{/*
Where browsers reach a Service, from (list <ingress values> <httpRoute values>): its Ingress host (https when the
Ingress's TLS covers it), else its HTTPRoute's first hostname (https: a Gateway listener terminates TLS); "" when
neither names a host. The service's public URL is derived from it unless one is given.
*/}}
{{- define "gsp.exposedUrl" -}}
{{- $ingress := index . 0 -}}
{{- $route := index . 1 -}}
{{- if and $ingress.enabled $ingress.hostname -}}
{{- $tls := $ingress.tls -}}
{{- range $ingress.extraTls }}{{ if has $ingress.hostname (.hosts | default list) }}{{ $tls = true }}{{ end }}{{ end -}}
{{- printf "%s://%s" (ternary "https" "http" $tls) $ingress.hostname -}}
{{- else if and $route.enabled $route.hostnames -}}
{{- printf "https://%s" (first $route.hostnames) -}}
{{- end -}}
{{- end -}}

{{/*
An Ingress to one Service's `http` port, Bitnami's values: (dict "values" <ingress values> "at" <their path> "name"
<object name> "service" <Service name> "labels" <labels>).
*/}}
{{- define "gsp.ingress" -}}
{{- $v := .values -}}
{{- if and $v.tls (not $v.hostname) -}}
{{- fail (printf "%s.tls needs %s.hostname: the certificate (Secret %s.secretName) is for that host" .at .at .at) -}}
{{- end -}}
{{- $backend := dict "service" (dict "name" .service "port" (dict "name" "http")) -}}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ .name }}
  labels:
    {{- .labels | nindent 4 }}
    {{- with $v.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $v.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with $v.ingressClassName }}
  ingressClassName: {{ . | quote }}
  {{- end }}
  rules:
    - http:
        paths:
          {{- with $v.extraPaths }}
          {{- toYaml . | nindent 10 }}
          {{- end }}
          - path: {{ $v.path | quote }}
            pathType: {{ $v.pathType }}
            backend:
              {{- toYaml $backend | nindent 14 }}
      {{- with $v.hostname }}
      host: {{ . | quote }}
      {{- end }}
    {{- range $v.extraHosts }}
    - host: {{ .name | quote }}
      http:
        paths:
          - path: {{ default $v.path .path | quote }}
            pathType: {{ default $v.pathType .pathType }}
            backend:
              {{- toYaml $backend | nindent 14 }}
    {{- end }}
  {{- if or $v.tls $v.extraTls }}
  tls:
    {{- if $v.tls }}
    - hosts:
        - {{ $v.hostname | quote }}
      secretName: {{ default (printf "%s-tls" $v.hostname) $v.secretName }}
    {{- end }}
    {{- with $v.extraTls }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
{{- end -}}

{{/*
A Gateway API HTTPRoute sending every path to one Service: (dict "values" <httpRoute values> "at" <their path>
"name" <object name> "service" <Service name> "port" <its port> "labels" <labels>).
*/}}
{{- define "gsp.httpRoute" -}}
{{- $v := .values -}}
{{- if not $v.parentRefs -}}
{{- fail (printf "%s.parentRefs: name the Gateway the route attaches to (name, namespace, and its listener as sectionName)" .at) -}}
{{- end -}}
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: {{ .name }}
  labels:
    {{- .labels | nindent 4 }}
    {{- with $v.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $v.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  parentRefs:
    {{- toYaml $v.parentRefs | nindent 4 }}
  {{- with $v.hostnames }}
  hostnames:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  rules:
    - matches:
        - path:
            type: PathPrefix
            value: /
      backendRefs:
        - name: {{ .service }}
          port: {{ .port }}
{{- end -}}

{{/*
topologySpreadConstraints from (list <topologySpread values> <selector labels> <their path>): one per key set,
hostname then zone, each ScheduleAnyway (a preference) or DoNotSchedule (a rule).
*/}}
{{- define "gsp.spread" -}}
{{- $spread := index . 0 -}}
{{- $labels := index . 1 -}}
{{- $at := index . 2 -}}
{{- $keys := dict "hostname" "kubernetes.io/hostname" "zone" "topology.kubernetes.io/zone" -}}
{{- range $name := list "hostname" "zone" }}
{{- $action := get $spread $name }}
{{- if not (has $action (list "" "ScheduleAnyway" "DoNotSchedule")) }}
{{- fail (printf "%s.%s must be \"ScheduleAnyway\", \"DoNotSchedule\" or \"\", got %q" $at $name (toString $action)) }}
{{- end }}
{{- with $action }}
- maxSkew: 1
  topologyKey: {{ get $keys $name }}
  whenUnsatisfiable: {{ . }}
  labelSelector:
    matchLabels:
      {{- $labels | nindent 6 }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
One NetworkPolicy egress rule: (list <destination values> <default ports> <their path> <why the service goes there>
<protocols>). The destination gives `cidrs` and/or `peers` (NetworkPolicyPeers, e.g. a namespaceSelector for an
in-cluster database); its `ports`, when given, replace the default (the port of the URL the chart knows). Without an
address the chart cannot tell where the service must reach, so it refuses rather than cut the service off.
*/}}
{{- define "gsp.egressRule" -}}
{{- $to := index . 0 -}}
{{- $ports := default (index . 1) $to.ports -}}
{{- $at := index . 2 -}}
{{- if not (or $to.cidrs $to.peers) -}}
{{- fail (printf "%s: the service reaches %s; give its addresses as cidrs (such as 10.0.0.0/8, or 0.0.0.0/0 for anywhere) or peers, or turn networkPolicy.enabled off" $at (index . 3)) -}}
{{- end -}}
- to:
    {{- range $to.cidrs }}
    - ipBlock:
        cidr: {{ . }}
    {{- end }}
    {{- with $to.peers }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  ports:
    {{- range $protocol := index . 4 }}
    {{- range $ports }}
    - protocol: {{ $protocol }}
      port: {{ int . }}
    {{- end }}
    {{- end }}
{{- end -}}

{{/*
checksum/secret, from (list $ <"secret/key" references>): the Secrets and keys a pod reads, and when helm runs against
a cluster (install, upgrade; not template or lint) each Secret's uid and resourceVersion, which change whenever it is
written. So an upgrade after a Secret's content changed rolls the pods that read it, and one with nothing changed does
not. Never the content itself: a hash of a short password in the Deployment could be guessed back.
*/}}
{{- define "gsp.secretChecksum" -}}
{{- $root := index . 0 -}}
{{- $refs := index . 1 | compact | uniq | sortAlpha -}}
{{- $names := list -}}
{{- range $refs }}{{ $names = append $names (first (splitList "/" .)) }}{{ end -}}
{{- $versions := list -}}
{{- range $name := $names | uniq }}
{{- $live := lookup "v1" "Secret" $root.Release.Namespace $name -}}
{{- $versions = append $versions (printf "%s@%s/%s" $name (dig "metadata" "uid" "" $live) (dig "metadata" "resourceVersion" "" $live)) -}}
{{- end -}}
{{- concat $refs $versions | join "\n" | sha256sum -}}
{{- end -}}

{{/*
A Prometheus Operator ServiceMonitor for one metrics Service: (dict "values" <monitoring.serviceMonitor values> "name"
<object name> "labels" <labels> "selector" <the Service's labels to match>).
*/}}
{{- define "gsp.serviceMonitor" -}}
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ .name }}
  labels:
    {{- .labels | nindent 4 }}
    {{- with .values.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  selector:
    matchLabels:
      {{- .selector | nindent 6 }}
  endpoints:
    - port: metrics
      path: /metrics
      interval: {{ .values.interval }}
      {{- with .values.scrapeTimeout }}
      scrapeTimeout: {{ . }}
      {{- end }}
{{- end -}}
