/** The logger the HTTP adapter writes to: the part of pino's logger it uses, so the app hands in its own. */
export interface HttpLog {
  /** Whether lines at this level are written (pino's): the access log is not even built when not. */
  isLevelEnabled?(level: string): boolean
  debug?(o: object, msg?: string): void
  info(o: object, msg?: string): void
  warn(o: object, msg?: string): void
  error(o: object, msg?: string): void
}
