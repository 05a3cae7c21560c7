/** A mistake in how the CLI was called: exit code 2 with the command's usage. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message)
  }
}

/** A failure the user can act on (unknown key, unreachable storage): exit code 1, one line. */
export class CommandError extends Error {}

export const HELP = ['--help', '-h']

export const MAIN_USAGE = `Usage: orka <command> [options]

Commands:
  token        mint a bearer token from an API key's private key
  keys create  generate an API key pair (stored when MONGODB_URI is set)
  keys list    list the API key pairs in storage
  keys revoke  revoke an API key pair
  payment-services list|add|set
               list, add or change merchant accounts' card services
  seed FILE    apply a provisioning file to storage
  config       print the effective configuration, secrets masked
  serve        start the API server

Run 'orka <command> --help' for a command's options. Configuration comes from the environment (see docs/configuration.md).
`
