import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import Router from '@koa/router'
import Koa from 'koa'

/**
 * Reference: a bare Koa + @koa/router app (what Orka's HTTP adapter is built on) with no work
 * of its own. `GET /roles` answers the bytes of an Orka roles page; `POST /gift-cards/activations`
 * reads and parses the JSON body, then answers `201` with the bytes of an Orka activation;
 * `POST /transactions` the same with the bytes of an Orka transaction (when a file is given).
 * argv: port, roles body file, activation body file, transaction body file (optional).
 */
const [port, rolesFile, activationFile, transactionFile] = process.argv.slice(2)
const roles = readFileSync(rolesFile ?? '')
const activation = readFileSync(activationFile ?? '')
const transaction = transactionFile === undefined ? undefined : readFileSync(transactionFile)

const readBody = async (req: NodeJS.ReadableStream): Promise<Buffer> => {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

const router = new Router()
router.get('/roles', (ctx) => {
  ctx.type = 'application/json'
  ctx.body = roles
})
const created = (answer: Buffer) => async (ctx: Koa.Context) => {
  const parsed: unknown = JSON.parse((await readBody(ctx.req)).toString('utf8'))
  if (typeof parsed !== 'object' || parsed === null) ctx.throw(422)
  ctx.status = 201
  ctx.type = 'application/json'
  ctx.body = answer
}
router.post('/gift-cards/activations', created(activation))
if (transaction !== undefined) router.post('/transactions', created(transaction))

const app = new Koa()
app.use(router.routes())
const handle = app.callback()
createServer((req, res) => {
  void handle(req, res)
}).listen(Number(port), '127.0.0.1')
