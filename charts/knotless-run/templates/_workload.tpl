{{/*
One service: its Deployment, ServiceAccount, metrics Service and disruption budget.
Called with a dict: root (the top context), component (name), spec (its values block),
env (rendered env entries), automountToken (bool: only the scheduler uses the API),
volumes and volumeMounts (rendered extras, beside /tmp), annotations (extra pod annotations).
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
  replicas: {{ .spec.replicas }}
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
            - name: http
              containerPort: {{ $root.Values.httpPort }}
              protocol: TCP
          env:
            - name: QUARKUS_HTTP_HOST
              value: "0.0.0.0"
            - name: QUARKUS_HTTP_PORT
              value: {{ $root.Values.httpPort | quote }}
            {{- .env | nindent 12 }}
            {{- with .spec.env }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          readinessProbe:
            httpGet:
              path: {{ $root.Values.probes.readiness.path }}
              port: http
            initialDelaySeconds: {{ $root.Values.probes.readiness.initialDelaySeconds }}
            periodSeconds: {{ $root.Values.probes.readiness.periodSeconds }}
            failureThreshold: {{ $root.Values.probes.readiness.failureThreshold }}
          livenessProbe:
            httpGet:
              path: {{ $root.Values.probes.liveness.path }}
              port: http
            initialDelaySeconds: {{ $root.Values.probes.liveness.initialDelaySeconds }}
            periodSeconds: {{ $root.Values.probes.liveness.periodSeconds }}
            failureThreshold: {{ $root.Values.probes.liveness.failureThreshold }}
          resources:
            {{- required (printf "%s.resources is required" .component) .spec.resources | toYaml | nindent 12 }}
          securityContext:
            {{- toYaml $root.Values.containerSecurityContext | nindent 12 }}
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
    - name: http
      port: {{ $root.Values.httpPort }}
      targetPort: http
      protocol: TCP
{{- if $root.Values.podDisruptionBudget.enabled }}
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
