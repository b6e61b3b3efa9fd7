/**
 * Every rendered object against its API's schema: the Kubernetes OpenAPI schemas (kubernetes-models,
 * via each model's validate()), the Prometheus Operator CRDs (@kubernetes-models/prometheus-operator)
 * and Strimzi's KafkaTopic and KafkaUser (kafka-topic.schema.json, kafka-user.schema.json, ajv). A kind with no schema here is an error, so
 * a new kind cannot slip through unchecked.
 */
import { PodMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor";
import { PrometheusRule } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule";
import { Ajv } from "ajv";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { Job } from "kubernetes-models/batch/v1/Job";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { Service } from "kubernetes-models/v1/Service";
import { ServiceAccount } from "kubernetes-models/v1/ServiceAccount";
import { ROOT } from "./kustomize";
import type { Manifest } from "./manifest-types";

type Validator = (m: Manifest) => void;
interface Model { validate(): void }
const model = (Type: new (data: never) => Model): Validator => (m) => new Type(m as never).validate();

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
/** A validator of the JSON schema in tests/deploy/<file>. */
function jsonSchema(file: string): Validator {
  const validate = ajv.compile(JSON.parse(readFileSync(path.join(ROOT, "tests", "deploy", file), "utf8")) as object);
  return (m) => {
    if (!validate(m)) throw new Error((validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join(", "));
  };
}

const VALIDATORS: Record<string, Validator> = {
  "v1/Namespace": model(Namespace),
  "v1/ConfigMap": model(ConfigMap),
  "v1/Service": model(Service),
  "v1/ServiceAccount": model(ServiceAccount),
  "apps/v1/Deployment": model(Deployment),
  "batch/v1/Job": model(Job),
  "policy/v1/PodDisruptionBudget": model(PodDisruptionBudget),
  "autoscaling/v2/HorizontalPodAutoscaler": model(HorizontalPodAutoscaler),
  "networking.k8s.io/v1/NetworkPolicy": model(NetworkPolicy),
  "monitoring.coreos.com/v1/PodMonitor": model(PodMonitor),
  "monitoring.coreos.com/v1/PrometheusRule": model(PrometheusRule),
  "kafka.strimzi.io/v1/KafkaTopic": jsonSchema("kafka-topic.schema.json"),
  "kafka.strimzi.io/v1/KafkaUser": jsonSchema("kafka-user.schema.json"),
};

/** Why `m` is not a valid object of its kind, or undefined when it is. */
export function schemaError(m: Manifest): string | undefined {
  const validate = VALIDATORS[`${m.apiVersion}/${m.kind}`];
  if (!validate) return `no schema for ${m.apiVersion} ${m.kind}: add one to tests/deploy/schemas.ts`;
  try {
    validate(m);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
