import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'

/**
 * Reference: a bare Node `http` server answering `GET /roles` with the bytes of an Orka roles
 * page, the ceiling of any Node HTTP service on this machine. argv: port, roles body file.
 */
const [port, rolesFile] = process.argv.slice(2)
const roles = readFileSync(rolesFile ?? '')

createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/roles')
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': roles.length }).end(roles)
  else res.writeHead(404).end()
}).listen(Number(port), '127.0.0.1')
