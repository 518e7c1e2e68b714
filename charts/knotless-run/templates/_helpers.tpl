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
- name: KNOTLESS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ .Values.runnerAccount.existingSecret }}
      key: {{ .Values.runnerAccount.passwordKey }}
{{- end }}
- name: KNOTLESS_PLC_URL
  value: {{ .Values.runnerAccount.plcUrl | quote }}
{{- end -}}

{{- define "knotless-run.env.kafka" -}}
- name: KAFKA_BOOTSTRAP_SERVERS
  value: {{ required "kafka.bootstrapServers is required" .Values.kafka.bootstrapServers | quote }}
{{- end -}}

{{/* PostgreSQL: Flyway migrates over JDBC, Hibernate Reactive uses the reactive URL; credentials from the Secret. */}}
{{- define "knotless-run.env.postgresql" -}}
{{- $pg := .Values.postgresql -}}
{{- $hostPort := printf "%s:%v/%s" (required "postgresql.host is required" $pg.host) $pg.port $pg.database -}}
- name: QUARKUS_DATASOURCE_JDBC_URL
  value: {{ printf "jdbc:postgresql://%s" $hostPort | quote }}
- name: QUARKUS_DATASOURCE_REACTIVE_URL
  value: {{ printf "postgresql://%s" $hostPort | quote }}
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
