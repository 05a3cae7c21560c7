import { SETTINGS } from '../config'
import { configFromEnv } from './storage-command'
import { HELP } from './usage'

export const CONFIG_USAGE = `Usage: orka config

Prints the effective configuration (environment plus defaults), one variable a line, secrets
masked. A bad value exits 1 naming the variable and what it expects.
`

/** A setting's value as one line: a list comma-separated, a map as `key=value` pairs. */
const plain = (v: unknown): string =>
  Array.isArray(v)
    ? v.map(plain).join(',')
    : typeof v === 'object' && v !== null && !Buffer.isBuffer(v)
      ? Object.entries(v)
          .map(([k, x]) => `${k}=${plain(x)}`)
          .join(',')
      : String(v)

export const configCommand = (args: string[]): void => {
  if (args.some((a) => HELP.includes(a))) return void process.stdout.write(CONFIG_USAGE)
  const config = configFromEnv() as unknown as Record<
    string,
    string | number | boolean | Buffer | readonly number[] | readonly string[] | Readonly<Record<string, string>> | undefined
  >
  /** Unset, or set to nothing (CONNECTOR_ENDPOINTS' empty map). */
  const unset = (v: unknown) => v === undefined || (v?.constructor === Object && Object.keys(v).length === 0)
  for (const [name, setting] of Object.entries(SETTINGS)) {
    const value = config[name]
    const shown = unset(value) ? '(unset)' : 'secret' in setting && setting.secret ? '********' : plain(value)
    process.stdout.write(`${setting.env}=${shown}\n`)
  }
}
