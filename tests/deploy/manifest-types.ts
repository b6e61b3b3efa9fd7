/** The parts of Kubernetes objects the deploy tests read; everything else stays unknown. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: unknown;
  data?: Record<string, string>;
  [field: string]: unknown;
}

export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  allowPrivilegeEscalation?: boolean;
  readOnlyRootFilesystem?: boolean;
  privileged?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type: string };
}

/** An HTTP probe (the gateway) or a native gRPC probe (the six services, grpc.health.v1). */
export interface Probe {
  httpGet?: { path: string; port: string | number };
  grpc?: { port: number; service?: string };
  periodSeconds?: number;
  timeoutSeconds?: number;
  failureThreshold?: number;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}

export interface Container {
  name: string;
  image: string;
  workingDir?: string;
  command?: string[];
  args?: string[];
  ports?: { name: string; containerPort: number; protocol?: string }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: SecurityContext;
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
  terminationGracePeriodSeconds?: number;
  restartPolicy?: string;
  securityContext?: SecurityContext;
  initContainers?: Container[];
  containers: Container[];
  volumes?: { name: string; emptyDir?: object; configMap?: { name: string }; secret?: { secretName: string; items?: { key: string; path: string }[] } }[];
}

export interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}

export interface WorkloadSpec {
  replicas?: number;
  selector?: { matchLabels: Record<string, string> };
  template: PodTemplate;
  backoffLimit?: number;
}

export type LabelSelector = { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] };

export interface NetworkPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}

export interface NetworkRule {
  from?: NetworkPeer[];
  to?: NetworkPeer[];
  ports?: { port?: number | string; protocol?: string }[];
}

export interface NetworkPolicySpec {
  podSelector: LabelSelector;
  policyTypes?: string[];
  ingress?: NetworkRule[];
  egress?: NetworkRule[];
}
