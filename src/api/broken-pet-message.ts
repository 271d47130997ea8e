/**
 * The broken-pet phrases of a PetSet's Progressing condition message: written by the planner
 * (src/controller/planner/broken-pets.ts), read back by the planner (which pets it already
 * warned about) and by `kubectl petset status`. The message is the contract, so its format
 * lives here, beside the condition names:
 *
 *   `PetSet web: 1 of 3 pets at version 4; broken pet web-2: CrashLoopBackOff, 13 restarts, at version 4`
 *
 *  - each named pet is one `; broken pet <pod>: <problem>` part, appended after the rest of
 *    the message, lowest ordinal first; a problem never contains "; ";
 *  - pets beyond the named ones are counted in one last part, `; <n> more broken pets`.
 */

export interface BrokenPet {
  /** The pod's name, `<petset>-<ordinal>`. */
  pet: string;
  /** What is wrong, e.g. `CrashLoopBackOff, 13 restarts, at version 4`. */
  problem: string;
}

const PREFIX = "broken pet ";
const MORE = /^(\d+) more broken pets?$/;

/** The parts to append to a Progressing message: empty when no pet is broken. */
export function brokenPetsSuffix(named: readonly BrokenPet[], more: number): string {
  const parts = named.map((p) => `; ${PREFIX}${p.pet}: ${p.problem.replaceAll("; ", ", ")}`);
  if (more > 0) parts.push(`; ${more} more broken ${more === 1 ? "pet" : "pets"}`);
  return parts.join("");
}

export interface ParsedBrokenPets {
  named: BrokenPet[];
  more: number;
  /** The message without its broken-pet parts. */
  rest: string;
}

/** The broken pets a Progressing message names (none for an undefined or older message). */
export function parseBrokenPets(message: string | undefined): ParsedBrokenPets {
  if (message === undefined) return { named: [], more: 0, rest: "" };
  const named: BrokenPet[] = [];
  let more = 0;
  const rest: string[] = [];
  for (const part of message.split("; ")) {
    const count = MORE.exec(part);
    if (count?.[1] !== undefined) {
      more = Number.parseInt(count[1], 10);
      continue;
    }
    const colon = part.indexOf(": ");
    if (part.startsWith(PREFIX) && colon > PREFIX.length) {
      named.push({ pet: part.slice(PREFIX.length, colon), problem: part.slice(colon + 2) });
      continue;
    }
    rest.push(part);
  }
  return { named, more, rest: rest.join("; ") };
}
