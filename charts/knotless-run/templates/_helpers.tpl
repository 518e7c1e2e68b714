{{/* Names and labels shared by every template. */}}

{{- define "knotless-run.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "knotless-run.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The name of one component's objects: <fullname>-<component>. */}}
{{- define "knotless-run.componentName" -}}
{{- printf "%s-%s" (include "knotless-run.fullname" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "knotless-run.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "knotless-run.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: knotless-run
{{- end -}}

{{/* Selector labels of one component; never change them after a release (selectors are immutable). */}}
{{- define "knotless-run.selectorLabels" -}}
app.kubernetes.io/name: {{ include "knotless-run.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "knotless-run.componentLabels" -}}
{{ include "knotless-run.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "knotless-run.image" -}}
{{- $tag := .spec.image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- if .root.Values.image.registry -}}
{{- printf "%s/%s:%s" .root.Values.image.registry .spec.image.repository $tag -}}
{{- else -}}
{{- printf "%s:%s" .spec.image.repository $tag -}}
{{- end -}}
{{- end -}}

{{/* The runner account, read from the operator's Secret; the value never passes through the chart. */}}
{{- define "knotless-run.env.account" -}}
- name: KNOTLESS_IDENTIFIER
  valueFrom:
    secretKeyRef:
      name: {{ required "runnerAccount.existingSecret is required" .Values.runnerAccount.existingSecret }}
      key: {{ .Values.runnerAccount.identifierKey }}
{{- if .withPassword }}
{{- with .Values.runnerAccount.oauthSession.existingSecret }}
{{- /* An OAuth session instead of an app password: the file, shared through PostgreSQL. */}}
- name: KNOTLESS_OAUTH_SESSION
  value: {{ printf "/etc/knotless/oauth-session/%s" $.Values.runnerAccount.oauthSession.key | quote }}
{{- else }}
- name: KNOTLESS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .Values.runnerAccount.existingSecret }}
      key: {{ .Values.runnerAccount.passwordKey }}
{{- end }}
{{- end }}
- name: KNOTLESS_PLC_URL
  value: {{ .Values.runnerAccount.plcUrl | quote }}
{{- end -}}

{{/* Kafka: each service its own SASL user, its password only in a secretKeyRef; call with (dict "Values" .Values "root" . "service" "<key under kafka.sasl.users>"). */}}
{{- define "knotless-run.env.kafka" -}}
{{- $k := .Values.kafka -}}
- name: KAFKA_BOOTSTRAP_SERVERS
  value: {{ required "kafka.bootstrapServers is required" $k.bootstrapServers | quote }}
{{- if ne $k.securityProtocol "PLAINTEXT" }}
{{- if not (has $k.securityProtocol (list "SASL_PLAINTEXT" "SASL_SSL")) }}
{{- fail "kafka.securityProtocol must be PLAINTEXT, SASL_PLAINTEXT or SASL_SSL" }}
{{- end }}
{{- $module := "org.apache.kafka.common.security.scram.ScramLoginModule" }}
{{- if $k.strimzi.users }}
{{- if ne $k.sasl.mechanism "SCRAM-SHA-512" }}
{{- fail "kafka.strimzi.users makes SCRAM-SHA-512 users: set kafka.sasl.mechanism to SCRAM-SHA-512" }}
{{- end }}
{{- else if eq $k.sasl.mechanism "PLAIN" }}
{{- $module = "org.apache.kafka.common.security.plain.PlainLoginModule" }}
{{- else if not (has $k.sasl.mechanism (list "SCRAM-SHA-256" "SCRAM-SHA-512")) }}
{{- fail "kafka.sasl.mechanism must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512" }}
{{- end }}
- name: KAFKA_SECURITY_PROTOCOL
  value: {{ $k.securityProtocol | quote }}
- name: KAFKA_SASL_MECHANISM
  value: {{ $k.sasl.mechanism | quote }}
{{- if $k.strimzi.users }}
{{- /* Strimzi's user operator names the user after its KafkaUser and puts the password in a Secret of that name. */}}
{{- $name := include "knotless-run.kafkaUser" (dict "root" .root "service" .service) }}
- name: KNOTLESS_KAFKA_USERNAME
  value: {{ $name | quote }}
- name: KNOTLESS_KAFKA_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $name }}
      key: password
{{- else }}
{{- $user := required (printf "kafka.sasl.users.%s is required" .service) (index $k.sasl.users .service) }}
- name: KNOTLESS_KAFKA_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ required "kafka.sasl.existingSecret is required with SASL (or kafka.strimzi.users)" $k.sasl.existingSecret }}
      key: {{ $user.usernameKey }}
- name: KNOTLESS_KAFKA_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $k.sasl.existingSecret }}
      key: {{ $user.passwordKey }}
{{- end }}
- name: KAFKA_SASL_JAAS_CONFIG
  value: {{ printf "%s required username=\"$(KNOTLESS_KAFKA_USERNAME)\" password=\"$(KNOTLESS_KAFKA_PASSWORD)\";" $module | quote }}
{{- end }}
{{- end -}}

{{/* PostgreSQL: every service's one datasource is JDBC (Flyway and every table); credentials from the Secret. */}}
{{- define "knotless-run.env.postgresql" -}}
{{- $pg := .Values.postgresql -}}
{{- $hostPort := printf "%s:%v/%s" (required "postgresql.host is required" $pg.host) $pg.port $pg.database -}}
{{- $jdbcQuery := "" -}}
{{- if $pg.sslMode }}
{{- if not (has $pg.sslMode (list "disable" "require" "verify-ca" "verify-full")) }}
{{- fail "postgresql.sslMode must be disable, require, verify-ca or verify-full" }}
{{- end }}
{{- $jdbcQuery = printf "?sslmode=%s" $pg.sslMode -}}
{{- if $pg.caSecret.name }}
{{- $jdbcQuery = printf "%s&sslrootcert=/etc/knotless/postgresql-ca/ca.crt" $jdbcQuery -}}
{{- else if has $pg.sslMode (list "verify-ca" "verify-full") }}
{{- /* No CA given: the server's certificate is checked against the JVM's trust store. */}}
{{- $jdbcQuery = printf "%s&sslfactory=org.postgresql.ssl.DefaultJavaSSLFactory" $jdbcQuery -}}
{{- end }}
{{- end }}
- name: QUARKUS_DATASOURCE_JDBC_URL
  value: {{ printf "jdbc:postgresql://%s%s" $hostPort $jdbcQuery | quote }}
- name: QUARKUS_DATASOURCE_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ required "postgresql.existingSecret is required" $pg.existingSecret }}
      key: {{ $pg.usernameKey }}
- name: QUARKUS_DATASOURCE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $pg.existingSecret }}
      key: {{ $pg.passwordKey }}
{{- end -}}

{{/* The Lease the scheduler replicas elect their leader on, in the release namespace. */}}
{{- define "knotless-run.schedulerLease" -}}
{{- .Values.scheduler.leaseName | default (include "knotless-run.componentName" (dict "root" . "component" "scheduler")) -}}
{{- end -}}

{{/* The PostgreSQL CA, when postgresql.caSecret names one: a volume and its mount, each a YAML list item or empty. */}}
{{- define "knotless-run.postgresql.caVolume" -}}
{{- $pg := .Values.postgresql -}}
{{- if and $pg.sslMode $pg.caSecret.name -}}
{{ printf "- name: postgresql-ca\n  secret:\n    secretName: %s\n    items:\n      - key: %s\n        path: ca.crt" $pg.caSecret.name $pg.caSecret.key }}
{{- end -}}
{{- end -}}

{{- define "knotless-run.postgresql.caMount" -}}
{{- $pg := .Values.postgresql -}}
{{- if and $pg.sslMode $pg.caSecret.name -}}
{{ "- name: postgresql-ca\n  mountPath: /etc/knotless/postgresql-ca\n  readOnly: true" }}
{{- end -}}
{{- end -}}

{{/* The ConfigMap of watched repositories. */}}
{{- define "knotless-run.repositoriesName" -}}
{{ include "knotless-run.fullname" . }}-repositories
{{- end }}

{{/* The watched repositories, one "<handle or did>/<name>" a line, each checked. */}}
{{- define "knotless-run.repositoriesList" -}}
# <handle or did>/<name>, one a line (values: repositories)
{{- range .Values.repositories }}
{{- if not (regexMatch "^[^/=[:space:]]+/[^/=[:space:]]+$" .) }}
{{- fail (printf "repositories: expected <handle or did>/<name>, got %q" .) }}
{{- end }}
{{ . }}
{{- end }}
{{- end }}

{{/* A quantity in Mi, Gi or Ti as whole mebibytes: the sum of emptyDir limits needs a number. */}}
{{- define "knotless-run.mebibytes" -}}
{{- $m := regexFind "^[0-9]+(Mi|Gi|Ti)$" (toString .) -}}
{{- if not $m -}}
{{- fail (printf "size %q: give a whole number of Mi, Gi or Ti" (toString .)) -}}
{{- end -}}
{{- $n := regexFind "^[0-9]+" $m | int64 -}}
{{- if hasSuffix "Ti" $m }}{{ mul $n 1048576 }}{{ else if hasSuffix "Gi" $m }}{{ mul $n 1024 }}{{ else }}{{ $n }}{{ end -}}
{{- end -}}

{{/* "true" when the autoscaler, not the Deployment, sets this component's replicas; call with (dict "root" . "component" "<name>"). */}}
{{- define "knotless-run.autoscaled" -}}
{{- $mode := .root.Values.autoscaling.mode -}}
{{- if not (has $mode (list "none" "keda" "hpa")) -}}
{{- fail "autoscaling.mode must be none, keda or hpa" -}}
{{- end -}}
{{- if and (ne $mode "none") (eq .component "reconciler") -}}true{{- end -}}
{{- end -}}

{{/* The fewest replicas a component runs: its autoscaler's minimum, else its replicas. */}}
{{- define "knotless-run.minReplicas" -}}
{{- if include "knotless-run.autoscaled" . -}}
{{- .root.Values.autoscaling.reconciler.minReplicas -}}
{{- else -}}
{{- .spec.replicas -}}
{{- end -}}
{{- end -}}

{{/* The KafkaUser (and Strimzi's Secret) of one service: <fullname>-<service in kebab case>. */}}
{{- define "knotless-run.kafkaUser" -}}
{{- include "knotless-run.componentName" (dict "root" .root "component" (printf "kafka-%s" (kebabcase .service))) -}}
{{- end -}}

{{/* The ConfigMap the scheduler reads its run-pod overlay from. */}}
{{- define "knotless-run.podOverlayName" -}}
{{- include "knotless-run.componentName" (dict "root" . "component" "pod-overlay") -}}
{{- end -}}

{{/*
What the operator lays over every run pod, as the JSON file the scheduler reads
(knotless.scheduler.pod-overlay-file). The patch may not name a field that carries one of the
runner's guarantees: the scheduler refuses it at start (libs/executors SpecPatch.PROTECTED, which
PodOverlayChartTest holds this list to), and the render refuses it first.
*/}}
{{- define "knotless-run.podOverlay" -}}
{{- $runs := .Values.runs -}}
{{- $patch := $runs.podSpecPatch | default dict -}}
{{- range list "runtimeClassName" "securityContext" "automountServiceAccountToken" "serviceAccountName" "serviceAccount" "containers" "initContainers" "ephemeralContainers" "volumes" "hostNetwork" "hostPID" "hostIPC" "hostUsers" "enableServiceLinks" "restartPolicy" "shareProcessNamespace" }}
{{- if hasKey $patch . }}
{{- fail (printf "runs.podSpecPatch.%s: the runner sets it on every run pod and keeps it (docs/helm.md, Fitting run pods to the cluster); a patch may not set it" .) }}
{{- end }}
{{- end }}
{{- dict "imagePullSecrets" ($runs.imagePullSecrets | default list) "nodeSelector" ($runs.nodeSelector | default dict) "tolerations" ($runs.tolerations | default list) "priorityClassName" ($runs.priorityClassName | default "") "podSpecPatch" $patch | toJson -}}
{{- end -}}

{{/* The runner's OAuth session file (runnerAccount.oauthSession), read-only, for the services that log in; empty when unset. */}}
{{- define "knotless-run.oauthSession.volume" -}}
{{- with .Values.runnerAccount.oauthSession.existingSecret -}}
- name: oauth-session
  secret:
    secretName: {{ . }}
    defaultMode: 0400
    items:
      - key: {{ $.Values.runnerAccount.oauthSession.key }}
        path: {{ $.Values.runnerAccount.oauthSession.key }}
{{- end -}}
{{- end -}}

{{- define "knotless-run.oauthSession.mount" -}}
{{- with .Values.runnerAccount.oauthSession.existingSecret -}}
# The runner's OAuth session as `knotless-run login` saved it; it seeds the database's copy.
- name: oauth-session
  mountPath: /etc/knotless/oauth-session
  readOnly: true
{{- end -}}
{{- end -}}
