import { randomUUID } from 'node:crypto'
import { parseArgs } from 'node:util'
import * as O from 'fp-ts/Option'
import { MOCK_CARD, PaymentServiceField, PaymentServiceRecord } from '@orka/domain'
import { cardServiceProblem } from '../card-services'
import { runTask } from '../run-task'
import { withStorage } from './storage-command'
import { CommandError, HELP, UsageError } from './usage'

export const PAYMENT_SERVICES_USAGE = `Usage: orka payment-services list [--merchant-account ID]
       orka payment-services add --merchant-account ID --display-name NAME [--definition mock-card] [--position N]
                                 [--inactive] [--currencies USD,EUR] [--field key=value]...
       orka payment-services set ID --merchant-account ID [--active true|false] [--position N] [--field key=value]...

A merchant account's card services, tried in position order (then oldest first) when a card
payment is routed. Needs MONGODB_URI.

list  Lists one account's card services, or every account's.
add   Adds a card service: definition mock-card, position 0, active and for every currency unless
      told otherwise; prints its id. --field mode=down makes mock-card fail every call (failover).
set   Changes a card service: --field key=value sets a field, --field key= removes it.
`

const usage = (message: string) => new UsageError(`payment-services ${message}`, PAYMENT_SERVICES_USAGE)

const positionOf = (v: string | undefined): number | undefined => {
  if (v === undefined) return undefined
  if (!/^\d{1,9}$/.test(v)) throw usage(`--position expects an integer of 0 or more, got '${v}'`)
  return Number(v)
}

const fieldsOf = (vs: readonly string[] = []): PaymentServiceField[] =>
  vs.map((v) => {
    const at = v.indexOf('=')
    if (at < 1) throw usage(`--field expects key=value, got '${v}'`)
    return { key: v.slice(0, at), value: v.slice(at + 1) }
  })

/** The fields with each change applied in turn: an empty value removes its key. */
const withChanges = (fields: readonly PaymentServiceField[], changes: readonly PaymentServiceField[]) =>
  changes.reduce<PaymentServiceField[]>(
    (acc, c) => (c.value === '' ? acc.filter((f) => f.key !== c.key) : [...acc.filter((f) => f.key !== c.key), c]),
    [...fields],
  )

const checked = (sub: string, definition: string, fields: readonly PaymentServiceField[]) => {
  const problem = cardServiceProblem(definition, fields)
  if (problem !== undefined) throw usage(`${sub}: ${problem}`)
}

const list = (args: string[]) => {
  const { values } = parseArgs({ args, options: { 'merchant-account': { type: 'string' } } })
  const account = values['merchant-account']
  return withStorage('payment-services list', async (s) => {
    const services = await runTask(
      account === undefined ? s.ports.cardServices.listAll() : s.ports.cardServices.listForAccount(account),
      'listing payment services',
    )
    const rows = services.map((p) => [
      p.id,
      p.merchant_account_id,
      p.payment_service_definition_id,
      String(p.position),
      p.active ? 'active' : 'inactive',
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
      field: { type: 'string', multiple: true },
    },
  })
  const account = values['merchant-account']
  const name = values['display-name']
  if (account === undefined) throw usage('add: --merchant-account ID is required')
  if (name === undefined || name.length === 0 || name.length > 200)
    throw usage('add: --display-name NAME (1 to 200 characters) is required')
  const currencies = values.currencies === undefined ? [] : values.currencies.split(',')
  for (const c of currencies) if (!/^[A-Z]{3}$/.test(c)) throw usage(`add: --currencies expects ISO 4217 codes such as USD,EUR, got '${c}'`)
  const fields = withChanges([], fieldsOf(values.field))
  checked('add', values.definition, fields)
  return withStorage('payment-services add', async (s) => {
    const found = await runTask(s.ports.merchantAccounts.find(account), 'reading the merchant account')
    if (O.isNone(found)) throw new CommandError(`payment-services add: no merchant account '${account}'`)
    const at = new Date().toISOString()
    const record: PaymentServiceRecord = {
      id: randomUUID(),
      merchant_account_id: account,
      payment_service_definition_id: values.definition,
      display_name: name,
      position: positionOf(values.position) ?? 0,
      active: !values.inactive,
      accepted_currencies: currencies,
      accepted_countries: [],
      fields,
      created_at: at,
      updated_at: at,
    }
    await runTask(s.ports.cardServices.upsert(record), 'storing the payment service')
    process.stdout.write(`added ${record.id}\n`)
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
  return withStorage('payment-services set', async (s) => {
    const found = O.toNullable(await runTask(s.ports.cardServices.findById(account, id), 'reading the payment service'))
    if (found === null) throw new CommandError(`payment-services set: no payment service '${id}' in merchant account '${account}'`)
    const fields = withChanges(found.fields, changes)
    checked('set', found.payment_service_definition_id, fields)
    const changed: PaymentServiceRecord = {
      ...found,
      active: values.active === undefined ? found.active : values.active === 'true',
      position: position ?? found.position,
      fields,
      updated_at: new Date().toISOString(),
    }
    await runTask(s.ports.cardServices.upsert(changed), 'storing the payment service')
    process.stdout.write(`updated ${id}\n`)
  })
}

export const paymentServicesCommand = async (args: string[]): Promise<void> => {
  const [sub, ...rest] = args
  if (sub === undefined || HELP.includes(sub) || rest.some((a) => HELP.includes(a)))
    return void process.stdout.write(PAYMENT_SERVICES_USAGE)
  if (sub === 'list') return list(rest)
  if (sub === 'add') return add(rest)
  if (sub === 'set') return set(rest)
  throw new UsageError(`payment-services: unknown subcommand '${sub}'`, PAYMENT_SERVICES_USAGE)
}
