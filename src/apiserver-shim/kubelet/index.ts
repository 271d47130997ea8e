/** The simulated kubelet: see docs/simulated-kubelet.md. */
export { FakeClock, systemTimerClock, type TimerClock } from "./clock.js";
export {
  chooseNode,
  delayFor,
  type NodeView,
  type Plan,
  planStage,
  renderStage,
  type World,
  type Write,
} from "./engine.js";
export {
  clientConfigFor,
  type SimulatedKubelet,
  type SimulatedKubeletOptions,
  startSimulatedKubelet,
} from "./kubelet.js";
export { type ObjectSource, StageRunner, StageWriteError, type StageWriter } from "./runner.js";
export {
  loadDefaultStages,
  loadStagesFile,
  parseStages,
  type Stage,
  type StageConfig,
  StageConfigError,
  type StageResource,
  withParams,
} from "./stages.js";
export { KubeStageWriter, type ServerCapabilities } from "./writer.js";
