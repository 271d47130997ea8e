/**
 * The format version of the state the controller writes (src/controller/state-format.ts has
 * the rules; docs/operations.md, "Upgrading and rolling back the controller", the promise).
 * Bump STATE_FORMAT when what the controller writes changes meaning or shape in a way an
 * older controller would misread, and add the new format to KNOWN_FORMATS there.
 */

/** The format this controller writes: `status.formatVersion` on versions, an annotation on pods. */
export const STATE_FORMAT = 1;

/** On pods the controller creates or patches: the format of the controller's marks on it. */
export const STATE_FORMAT_ANNOTATION = "petset.dev/state-format";

/** Progressing=False reason and Event reason of a PetSet whose state is in a newer format. */
export const UNSUPPORTED_STATE_FORMAT = "UnsupportedStateFormat";
