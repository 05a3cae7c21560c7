import { SETTINGS } from '../config'
import { configFromEnv } from './storage-command'
import { HELP } from './usage'

export const CONFIG_USAGE = `Usage: orka config

Prints the effective configuration (environment plus defaults), one variable a line, secrets
masked. A bad value exits 1 naming the variable and what it expects.
`

export const configCommand = (args: string[]): void => {
  if (args.some((a) => HELP.includes(a))) return void process.stdout.write(CONFIG_USAGE)
  const config = configFromEnv() as unknown as Record<
    string,
    string | number | boolean | Buffer | readonly number[] | readonly string[] | undefined
  >
  for (const [name, setting] of Object.entries(SETTINGS)) {
    const value = config[name]
    const shown = value === undefined ? '(unset)' : 'secret' in setting && setting.secret ? '********' : String(value)
    process.stdout.write(`${setting.env}=${shown}\n`)
  }
}
