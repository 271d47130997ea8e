/**
 * CEL rules (`x-kubernetes-validations`) of the two CRDs. The API server evaluates them, so
 * `kubectl apply` of an invalid PetSet fails at once with the field named, and a
 * PetSetVersion's spec cannot be changed by anyone, not only by the controller.
 */
export interface CelRule {
  rule: string;
  message: string;
  fieldPath?: string;
  reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
}

const LABELS = "self.template.metadata.labels";
const HAS_LABELS = `has(self.template.metadata) && has(${LABELS})`;

/** On PetSet `spec`: the selector must select the pods the template makes. */
export const selectorMatchesTemplate: CelRule[] = [
  {
    rule: "(has(self.selector.matchLabels) && size(self.selector.matchLabels) > 0) || (has(self.selector.matchExpressions) && size(self.selector.matchExpressions) > 0)",
    message: "empty selector is invalid for a PetSet",
    fieldPath: ".selector",
    reason: "FieldValueInvalid",
  },
  {
    rule: `!has(self.selector.matchLabels) || self.selector.matchLabels.all(k, ${HAS_LABELS} && k in ${LABELS} && ${LABELS}[k] == self.selector.matchLabels[k])`,
    message: "selector does not match template labels",
    fieldPath: ".template.metadata.labels",
    reason: "FieldValueInvalid",
  },
  {
    rule:
      "!has(self.selector.matchExpressions) || self.selector.matchExpressions.all(e, " +
      `e.operator == 'In' ? (${HAS_LABELS} && e.key in ${LABELS} && has(e.values) && ${LABELS}[e.key] in e.values) : ` +
      `e.operator == 'NotIn' ? (!(${HAS_LABELS}) || !(e.key in ${LABELS}) || !has(e.values) || !(${LABELS}[e.key] in e.values)) : ` +
      `e.operator == 'Exists' ? (${HAS_LABELS} && e.key in ${LABELS}) : ` +
      `(!(${HAS_LABELS}) || !(e.key in ${LABELS})))`,
    message: "selector does not match template labels",
    fieldPath: ".template.metadata.labels",
    reason: "FieldValueInvalid",
  },
];

/** On PetSet `spec.selector`: like StatefulSet, the selector cannot change after creation. */
export const selectorImmutable: CelRule = {
  rule: "self == oldSelf",
  message: "field is immutable",
  reason: "FieldValueInvalid",
};

/** On `spec.updateStrategy.rollingUpdate`: a rollout that may take no pod down never moves. */
export const maxUnavailableNotZero: CelRule = {
  rule: "!has(self.maxUnavailable) || (type(self.maxUnavailable) == int ? self.maxUnavailable > 0 : self.maxUnavailable.matches('^[0-9]*[1-9][0-9]*%$'))",
  message: "must be a positive integer or a percentage greater than 0%",
  fieldPath: ".maxUnavailable",
  reason: "FieldValueInvalid",
};

/** On PetSetVersion `spec`: versions are immutable records. */
export const versionSpecImmutable: CelRule = {
  rule: "self == oldSelf",
  message: "spec is immutable: a PetSetVersion records one observed version and never changes",
  reason: "FieldValueForbidden",
};

/** On each item of `rollingUpdate.steps`: exactly one of pets and pause. */
export const rolloutStepOneOf: CelRule = {
  rule: "has(self.pets) != has(self.pause)",
  message: "each step must have exactly one of pets or pause",
  reason: "FieldValueInvalid",
};

/** On `spec.updateStrategy.rollingUpdate`: pauseAfterEachPet is a shorthand for steps. */
export const stepsExclusive: CelRule = {
  rule: "!has(self.steps) || !has(self.pauseAfterEachPet) || !self.pauseAfterEachPet",
  message: "steps and pauseAfterEachPet are mutually exclusive (pauseAfterEachPet expands to steps)",
  fieldPath: ".pauseAfterEachPet",
  reason: "FieldValueInvalid",
};

/** On each item of `rollingUpdate.steps`: an int `pets` is not negative. */
export const petsNotNegative: CelRule = {
  rule: "!has(self.pets) || type(self.pets) != int || self.pets >= 0",
  message: "must be a non-negative integer or a percentage",
  fieldPath: ".pets",
  reason: "FieldValueInvalid",
};
