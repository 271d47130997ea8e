/** Time as a dependency: decisions take `now` from a Clock so tests can move it. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
