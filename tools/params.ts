/**
 * Tool parameters shared by every tool, defined once: Kubernetes namespaces, object names, container
 * names and label selectors, with the rules Kubernetes applies (k8s.io/apimachinery validation).
 * A value that breaks a rule is rejected before any API call with a message naming the rule; the
 * server prefixes the field name from the zod issue path.
 */
import { z } from 'zod';
import { LabelSelectorSyntaxError, parseLabelSelector } from './kube/label-selector.ts';

/** DNS-1123 label: lowercase alphanumerics and '-', alphanumeric at both ends (namespaces, container names). */
export const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** DNS-1123 subdomain: DNS-1123 labels joined by '.' (most object names). */
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const LABEL_RULE =
  "must be a DNS-1123 label: 1-63 characters of lowercase letters, digits and '-', starting and ending with a letter or digit";
const SUBDOMAIN_RULE =
  "must be a DNS-1123 subdomain: 1-253 characters of lowercase letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit";

function dns1123Label(description: string) {
  return z
    .string({ error: `${LABEL_RULE} (got a non-string)` })
    .min(1, { error: LABEL_RULE })
    .max(63, { error: `${LABEL_RULE} (got more than 63 characters)` })
    .regex(DNS1123_LABEL, { error: LABEL_RULE })
    .describe(description);
}

/** A namespace: DNS-1123 label, at most 63 characters. */
export const NamespaceSchema = dns1123Label(
  "Kubernetes namespace, e.g. 'shop'. DNS-1123 label: lowercase letters, digits and '-', at most 63 characters.",
);
export type Namespace = z.infer<typeof NamespaceSchema>;

/** The name of an object of `kind` (Deployment, Pod, ...): DNS-1123 subdomain, at most 253 characters. */
export function objectNameSchema(kind: string) {
  return z
    .string({ error: `${SUBDOMAIN_RULE} (got a non-string)` })
    .min(1, { error: SUBDOMAIN_RULE })
    .max(253, { error: `${SUBDOMAIN_RULE} (got more than 253 characters)` })
    .regex(DNS1123_SUBDOMAIN, { error: SUBDOMAIN_RULE })
    .describe(
      `Name of the ${kind}, e.g. 'checkout'. DNS-1123 subdomain: lowercase letters, digits, '-' and '.', at most 253 characters.`,
    );
}
export const DeploymentNameSchema = objectNameSchema('Deployment');
export const PodNameSchema = objectNameSchema('Pod');
export type ObjectName = z.infer<typeof DeploymentNameSchema>;

/** A container name within a Pod: DNS-1123 label, at most 63 characters. */
export const ContainerNameSchema = dns1123Label(
  "Container name within the Pod, e.g. 'app'. DNS-1123 label, at most 63 characters.",
);

/**
 * A Kubernetes label selector string, parsed with the Kubernetes grammar (./kube/label-selector.ts)
 * so a bad selector fails here, naming what is wrong, instead of at the API server. Whitespace is
 * trimmed; the empty string selects everything.
 */
export const LabelSelectorSchema = z
  .string({ error: 'must be a label selector string' })
  .max(4096, { error: 'must be a label selector of at most 4096 characters' })
  .trim()
  .superRefine((selector, ctx) => {
    try {
      parseLabelSelector(selector);
    } catch (error) {
      if (!(error instanceof LabelSelectorSyntaxError)) throw error;
      ctx.addIssue({
        code: 'custom',
        message: `must be a Kubernetes label selector such as 'app=web,tier!=cache' or 'env in (prod,staging)': ${error.message}`,
      });
    }
  })
  .describe(
    "Kubernetes label selector, e.g. 'app=checkout' or 'app=checkout,track in (stable,canary)'. Same syntax as kubectl -l. Default: all.",
  );
export type LabelSelector = z.infer<typeof LabelSelectorSchema>;

/**
 * An integer in [min, max] with a default; the description states unit, range and default.
 * E.g. `boundedInt({ min: 1, max: 2000, default: 200, unit: 'lines', what: 'Lines from the end of the log' })`.
 */
export function boundedInt(spec: { min: number; max: number; default: number; unit: string; what: string }) {
  const rule = `must be a whole number of ${spec.unit} from ${spec.min} to ${spec.max}`;
  return z
    .number({ error: rule })
    .int({ error: rule })
    .min(spec.min, { error: rule })
    .max(spec.max, { error: rule })
    .default(spec.default)
    .describe(`${spec.what}, in ${spec.unit}; ${spec.min}-${spec.max}, default ${spec.default}.`);
}
