/**
 * `make test` runs property tests as a fixed-seed slice (the same inputs every run, so CI is
 * never red by luck); FC_SEED picks another seed to explore, and a failure prints the seed and
 * path that reproduce it. Tests that set their own `seed` keep it.
 */
import fc from "fast-check";

const seed = Number(process.env.FC_SEED ?? 20261201);
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
