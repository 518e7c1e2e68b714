{{/*
One service: its Deployment, ServiceAccount, metrics Service and disruption budget.
Called with a dict: root (the top context), component (name), spec (its values block),
env (rendered env entries), automountToken (bool: only the scheduler uses the API),
volumes and volumeMounts (rendered extras, beside /tmp), annotations (extra pod annotations),
scratch (the sizeLimits of its large emptyDirs, each a quantity such as 10Gi: their sum and /tmp's
become the container's ephemeral-storage request, unless its resources name one).
*/}}
{{- define "knotless-run.workload" -}}
{{- $root := .root -}}
{{- $name := include "knotless-run.componentName" . -}}
{{- $ctx := dict "root" $root "component" .component -}}
{{- if $root.Values.serviceAccount.create }}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ $name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "knotless-run.componentLabels" $ctx | nindent 4 }}
  {{- with $root.Values.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: {{ .automountToken }}
{{- end }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "knotless-run.componentLabels" $ctx | nindent 4 }}
spec:
  {{- if not (include "knotless-run.autoscaled" $ctx) }}
  replicas: {{ .spec.replicas }}
  {{- end }}
  {{- if eq .component "check-writer" }}
  # The new pod starts before an old one stops; a stopping pod finishes the event in hand and
  # gives its partitions up, and the running checks it wrote are in PostgreSQL for the next owner.
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
  {{- end }}
  selector:
    matchLabels:
      {{- include "knotless-run.selectorLabels" $ctx | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "knotless-run.selectorLabels" $ctx | nindent 8 }}
        app.kubernetes.io/part-of: knotless-run
        {{- with $root.Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- $annotations := merge (dict) ($root.Values.podAnnotations | default dict) (.annotations | default dict) }}
      {{- with $annotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      serviceAccountName: {{ if $root.Values.serviceAccount.create }}{{ $name }}{{ else }}default{{ end }}
      automountServiceAccountToken: {{ .automountToken }}
      enableServiceLinks: false
      {{- with .grace }}
      terminationGracePeriodSeconds: {{ . }}
      {{- end }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- range . }}
        - name: {{ . }}
        {{- end }}
      {{- end }}
      containers:
        - name: {{ .component }}
          image: {{ include "knotless-run.image" (dict "root" $root "spec" .spec) | quote }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          ports:
            # Health and metrics only; the service's own HTTP port stays on the pod's loopback.
            - name: management
              containerPort: {{ $root.Values.managementPort }}
              protocol: TCP
          env:
            - name: QUARKUS_HTTP_HOST
              value: "127.0.0.1"
            - name: QUARKUS_HTTP_PORT
              value: {{ $root.Values.httpPort | quote }}
            - name: QUARKUS_MANAGEMENT_HOST
              value: "0.0.0.0"
            - name: QUARKUS_MANAGEMENT_PORT
              value: {{ $root.Values.managementPort | quote }}
            {{- .env | nindent 12 }}
            {{- with .spec.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          startupProbe:
            httpGet:
              path: {{ $root.Values.probes.startup.path }}
              port: management
            periodSeconds: {{ $root.Values.probes.startup.periodSeconds }}
            failureThreshold: {{ $root.Values.probes.startup.failureThreshold }}
          readinessProbe:
            httpGet:
              path: {{ $root.Values.probes.readiness.path }}
              port: management
            initialDelaySeconds: {{ $root.Values.probes.readiness.initialDelaySeconds }}
            periodSeconds: {{ $root.Values.probes.readiness.periodSeconds }}
            failureThreshold: {{ $root.Values.probes.readiness.failureThreshold }}
          livenessProbe:
            httpGet:
              path: {{ $root.Values.probes.liveness.path }}
              port: management
            initialDelaySeconds: {{ $root.Values.probes.liveness.initialDelaySeconds }}
            periodSeconds: {{ $root.Values.probes.liveness.periodSeconds }}
            failureThreshold: {{ $root.Values.probes.liveness.failureThreshold }}
          {{- $resources := deepCopy (required (printf "%s.resources is required" .component) .spec.resources) }}
          {{- $requests := $resources.requests | default dict }}
          {{- if not (hasKey $requests "ephemeral-storage") }}
          {{- /* What the emptyDirs may fill, asked for up front so the pod lands on a node with the room. */}}
          {{- $mi := 1024 }}
          {{- range (.scratch | default list) }}
          {{- $mi = add $mi (include "knotless-run.mebibytes" .) }}
          {{- end }}
          {{- $_ := set $requests "ephemeral-storage" (printf "%dMi" (int $mi)) }}
          {{- $_ := set $resources "requests" $requests }}
          {{- end }}
          resources:
            {{- toYaml $resources | nindent 12 }}
          securityContext:
            {{- toYaml (.securityContext | default $root.Values.containerSecurityContext) | nindent 12 }}
          volumeMounts:
            # The root filesystem is read-only; the JVM and Vert.x write here.
            - name: tmp
              mountPath: /tmp
            {{- with .volumeMounts }}
            {{- . | nindent 12 }}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: 1Gi
        {{- with .volumes }}
        {{- . | nindent 8 }}
        {{- end }}
      {{- with .spec.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .spec.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .spec.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "knotless-run.componentLabels" $ctx | nindent 4 }}
    knotless.dev/metrics: "true"
spec:
  type: ClusterIP
  selector:
    {{- include "knotless-run.selectorLabels" $ctx | nindent 4 }}
  ports:
    - name: management
      port: {{ $root.Values.managementPort }}
      targetPort: management
      protocol: TCP
{{- $pdb := $root.Values.podDisruptionBudget }}
{{- $least := include "knotless-run.minReplicas" (dict "root" $root "component" .component "spec" .spec) | int }}
{{- if and $pdb.enabled (gt $least (int $pdb.maxUnavailable)) }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ $name }}
  namespace: {{ $root.Release.Namespace }}
  labels:
    {{- include "knotless-run.componentLabels" $ctx | nindent 4 }}
spec:
  maxUnavailable: {{ $root.Values.podDisruptionBudget.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "knotless-run.selectorLabels" $ctx | nindent 6 }}
{{- end }}
{{- end -}}
