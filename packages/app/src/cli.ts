#!/usr/bin/env node
import 'reflect-metadata'
import { configCommand } from './cli/config-command'
import { keysCommand } from './cli/keys-command'
import { paymentServicesCommand } from './cli/payment-services-command'
import { seedCommand } from './cli/seed-command'
import { tokenCommand } from './cli/token-command'
import { CommandError, HELP, MAIN_USAGE, UsageError } from './cli/usage'

const SERVE_USAGE = `Usage: orka serve

Starts the API server; configuration from the environment (see docs/configuration.md). Stops on SIGTERM/SIGINT
after finishing the requests in flight.
`

const run = async (argv: string[]): Promise<void> => {
  const [command, ...rest] = argv
  switch (command) {
    case 'token': {
      tokenCommand(rest)
      return
    }
    case 'keys':
      return keysCommand(rest)
    case 'payment-services':
      return paymentServicesCommand(rest)
    case 'seed':
      return seedCommand(rest)
    case 'config': {
      configCommand(rest)
      return
    }
    case 'serve':
      if (rest.some((a) => HELP.includes(a))) return void process.stdout.write(SERVE_USAGE)
      await import('./main.js')
      return
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return void process.stdout.write(MAIN_USAGE)
    default:
      throw new UsageError(`unknown command '${command}'`, MAIN_USAGE)
  }
}

run(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof UsageError) {
    process.stderr.write(`orka: ${e.message}\n\n${e.usage}`)
    process.exit(2)
  }
  if ((e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`orka: ${(e as Error).message}\n\n${MAIN_USAGE}`)
    process.exit(2)
  }
  process.stderr.write(`orka: ${e instanceof CommandError ? e.message : e instanceof Error ? e.message : String(e)}\n`)
  process.exit(1)
})
