import { parseArgs } from 'node:util'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import * as t from 'io-ts'
import {
  checkedSettings,
  CLI_ACTOR,
  DomainError,
  Field,
  inputFaults,
  makeCreatePaymentService,
  makeDeletePaymentService,
  makeUpdatePaymentService,
  MAX_POSITION,
  MOCK_CARD,
  PaymentServiceCreate,
  PaymentServiceDeps,
  PaymentServiceUpdate,
} from '@orka/domain'
import { messageOf } from '@orka/adapters-http'
import { connectorCatalogue, SystemClock } from '@orka/adapters-node'
import { provisioningDeps } from '../card-services'
import { resolveRootKey } from '../root-key'
import { refusalOf, runTask } from '../run-task'
import { Storage } from '../storage'
import { macOf, vaultBox } from '../wiring/derived-keys'
import { withStorage } from './storage-command'
import { CommandError, HELP, UsageError } from './usage'

export const PAYMENT_SERVICES_USAGE = `Usage: orka payment-services list [--merchant-account ID]
       orka payment-services add --merchant-account ID --display-name NAME [--definition mock-card] [--position N]
                                 [--inactive] [--currencies USD,EUR] [--countries US,GB] [--field key=value]...
       orka payment-services set ID --merchant-account ID [--active true|false] [--position N] [--field key=value]...
       orka payment-services delete ID --merchant-account ID

A merchant account's card services, tried in position order (then oldest first) when a card
payment is routed: the same checks and audit entries as the API's /payment-services. Needs
MONGODB_URI, and the servers' VAULT_KEY (secret fields are sealed with it).

list    Lists one account's card services, or every account's (never a secret field).
add     Adds a card service: definition mock-card, after the account's others, active and for every
        currency and country unless told otherwise; prints its id. --field mode=down makes mock-card
        fail every call (failover).
set     Changes a card service: --field key=value sets a field, --field key= removes it.
delete  Deletes a card service: routed to no more, kept for the transactions that used it.
`

const usage = (message: string) => new UsageError(`payment-services ${message}`, PAYMENT_SERVICES_USAGE)

const positionOf = (v: string | undefined): number | undefined => {
  if (v === undefined) return undefined
  if (!/^\d{1,3}$/.test(v)) throw usage(`--position expects an integer from 0 to ${MAX_POSITION}, got '${v}'`)
  return Number(v)
}

const fieldsOf = (vs: readonly string[] = []): Field[] =>
  vs.map((v) => {
    const at = v.indexOf('=')
    if (at < 1) throw usage(`--field expects key=value, got '${v}'`)
    return { key: v.slice(0, at), value: v.slice(at + 1) }
  })

/** The CLI's input checked by the API's own codec: what the API would refuse, the CLI refuses with the same words. */
const decoded = <A>(codec: t.Type<A, unknown>, sub: string, input: unknown): A => {
  const r = codec.decode(input)
  if (E.isLeft(r))
    throw usage(
      `${sub}: ${inputFaults(r.left)
        .map((f) => `${f.path.join('.')}: ${messageOf(f)}`)
        .join('; ')}`,
    )
  return r.right
}

/** Runs a use case over the storage, as the CLI user: the same checks and audit entries as the API's. */
const withUseCases = (what: string, run: (deps: PaymentServiceDeps, s: Storage) => Promise<void>) =>
  withStorage(what, async (s, config) => {
    const rootKey = resolveRootKey(config, true).key
    const deps = provisioningDeps({ ...s.ports, box: vaultBox(rootKey), mac: macOf(rootKey) }, new SystemClock())
    await run(deps, s)
  })

const list = (args: string[]) => {
  const { values } = parseArgs({ args, options: { 'merchant-account': { type: 'string' } } })
  const account = values['merchant-account']
  return withStorage('payment-services list', async (s) => {
    const services = await runTask(
      account === undefined ? s.ports.cardServices.listAll() : s.ports.cardServices.listForAccount(account),
      'listing payment services',
    )
    // Secret fields are sealed apart (`sealed_fields`) and never shown.
    const rows = services.map((p) => [
      p.id,
      p.merchant_account_id,
      p.payment_service_definition_id,
      String(p.position),
      p.deleted_at !== undefined ? 'deleted' : p.active ? 'active' : 'inactive',
      p.accepted_currencies.join(',') || '*',
      p.fields.map((f) => `${f.key}=${f.value}`).join(',') || '-',
      p.display_name,
    ])
    const header = ['ID', 'MERCHANT ACCOUNT', 'DEFINITION', 'POSITION', 'STATE', 'CURRENCIES', 'FIELDS', 'DISPLAY NAME']
    for (const r of [header, ...rows]) process.stdout.write(`${r.join('\t')}\n`)
  })
}

const add = (args: string[]) => {
  const { values } = parseArgs({
    args,
    options: {
      'merchant-account': { type: 'string' },
      'display-name': { type: 'string' },
      definition: { type: 'string', default: MOCK_CARD },
      position: { type: 'string' },
      inactive: { type: 'boolean', default: false },
      currencies: { type: 'string' },
      countries: { type: 'string' },
      field: { type: 'string', multiple: true },
    },
  })
  const account = values['merchant-account']
  const name = values['display-name']
  if (account === undefined) throw usage('add: --merchant-account ID is required')
  if (name === undefined || name.length === 0 || name.length > 200)
    throw usage('add: --display-name NAME (1 to 200 characters) is required')
  const input = decoded(PaymentServiceCreate, 'add', {
    display_name: name,
    payment_service_definition_id: values.definition,
    position: positionOf(values.position),
    active: !values.inactive,
    accepted_currencies: values.currencies === undefined ? [] : values.currencies.split(','),
    accepted_countries: values.countries === undefined ? [] : values.countries.split(','),
    fields: fieldsOf(values.field),
  })
  // The API's checks, before storage is opened: a refusal is a usage error.
  const checked = checkedSettings(connectorCatalogue(), input.payment_service_definition_id, input, [])
  if (E.isLeft(checked)) throw usage(`add: ${refusalOf(checked.left)}`)
  return withUseCases('payment-services add', async (deps, s) => {
    const found = await runTask(s.ports.merchantAccounts.find(account), 'reading the merchant account')
    if (O.isNone(found)) throw new CommandError(`payment-services add: no merchant account '${account}'`)
    const created = await refused(
      'add',
      { id: '', account },
      makeCreatePaymentService(deps)({ merchantAccountId: account, actor: CLI_ACTOR, input }),
    )
    process.stdout.write(`added ${created.id}\n`)
  })
}

const set = (args: string[]) => {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'merchant-account': { type: 'string' },
      active: { type: 'string' },
      position: { type: 'string' },
      field: { type: 'string', multiple: true },
    },
  })
  const [id] = positionals
  const account = values['merchant-account']
  if (id === undefined || positionals.length > 1) throw usage('set: expected exactly one payment service id')
  if (account === undefined) throw usage('set: --merchant-account ID is required')
  if (values.active !== undefined && values.active !== 'true' && values.active !== 'false')
    throw usage(`set: --active expects true or false, got '${values.active}'`)
  const position = positionOf(values.position)
  const changes = fieldsOf(values.field)
  if (values.active === undefined && position === undefined && changes.length === 0)
    throw usage('set: nothing to change (--active, --position or --field)')
  const input = decoded(PaymentServiceUpdate, 'set', {
    ...(values.active === undefined ? {} : { active: values.active === 'true' }),
    ...(position === undefined ? {} : { position }),
    ...(changes.length === 0 ? {} : { fields: changes }),
  })
  return withUseCases('payment-services set', async (deps) => {
    await refused('set', { id, account }, makeUpdatePaymentService(deps)({ merchantAccountId: account, actor: CLI_ACTOR, id, input }))
    process.stdout.write(`updated ${id}\n`)
  })
}

const remove = (args: string[]) => {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'merchant-account': { type: 'string' } } })
  const [id] = positionals
  const account = values['merchant-account']
  if (id === undefined || positionals.length > 1) throw usage('delete: expected exactly one payment service id')
  if (account === undefined) throw usage('delete: --merchant-account ID is required')
  return withUseCases('payment-services delete', async (deps) => {
    await refused('delete', { id, account }, makeDeletePaymentService(deps)({ merchantAccountId: account, actor: CLI_ACTOR, id }))
    process.stdout.write(`deleted ${id}\n`)
  })
}

/** A use case's answer; a refusal or a `404` as the command's error, in the API's words. */
const refused = async <A>(
  sub: string,
  { id, account }: { readonly id: string; readonly account: string },
  task: TE.TaskEither<DomainError, A>,
): Promise<A> => {
  const r = await task()
  if (E.isRight(r)) return r.right
  if (r.left._tag === 'InvalidRequest') throw new CommandError(`payment-services ${sub}: ${refusalOf(r.left)}`)
  if (r.left._tag === 'NotFound')
    throw new CommandError(`payment-services ${sub}: no payment service '${id}' in merchant account '${account}'`)
  return runTask(TE.left(r.left), `payment-services ${sub}`)
}

export const paymentServicesCommand = async (args: string[]): Promise<void> => {
  const [sub, ...rest] = args
  if (sub === undefined || HELP.includes(sub) || rest.some((a) => HELP.includes(a)))
    return void process.stdout.write(PAYMENT_SERVICES_USAGE)
  if (sub === 'list') return list(rest)
  if (sub === 'add') return add(rest)
  if (sub === 'set') return set(rest)
  if (sub === 'delete') return remove(rest)
  throw new UsageError(`payment-services: unknown subcommand '${sub}'`, PAYMENT_SERVICES_USAGE)
}
