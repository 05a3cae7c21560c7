import { expect } from 'chai'
import { WebhookSubscriptionCreate } from '@orka/domain'
import { Violation } from '../../src/decode/violations'
import { decoded, violationsOf } from './helpers'

const URL = 'https://merchant.example/hooks/orka'
const URL_RE = '^https?:\\/\\/[^\\s/?#]+[^\\s]*$'

describe('WebhookSubscriptionCreate', () => {
  const accepted: [string, unknown][] = [
    ['a url alone', { url: URL }],
    ['an inactive subscription without authentication', { url: 'http://localhost:9000/x', active: false, authentication: null }],
    ['basic authentication', { url: URL, authentication: { kind: 'basic', username: 'u', password: 'p' } }],
    [
      'OAuth client credentials with a scope',
      {
        url: URL,
        authentication: {
          kind: 'oauth_client_credentials',
          client_id: 'c',
          client_secret: 's',
          token_url: 'https://auth.example/token',
          scope: 'hooks',
        },
      },
    ],
    [
      'OAuth password with a null scope',
      {
        url: URL,
        authentication: {
          kind: 'oauth_password',
          client_id: 'c',
          client_secret: 's',
          token_url: 'https://auth.example/token',
          username: 'u',
          password: 'p',
          scope: null,
        },
      },
    ],
  ]
  for (const [name, body] of accepted)
    it(`accepts ${name}`, () => {
      expect(decoded(WebhookSubscriptionCreate, body)).to.deep.equal(body)
    })

  const rejected: [string, unknown, Violation[]][] = [
    ['a missing url', {}, [{ loc: ['body', 'url'], msg: 'Field required', type: 'missing' }]],
    [
      'a url that is not http(s)',
      { url: 'ftp://merchant.example/x' },
      [
        {
          loc: ['body', 'url'],
          msg: `String should match pattern '${URL_RE}'`,
          type: 'string_pattern_mismatch',
          input: 'ftp://merchant.example/x',
          ctx: { pattern: URL_RE },
        },
      ],
    ],
    [
      'basic authentication without password, at body.authentication.password',
      { url: URL, authentication: { kind: 'basic', username: 'u' } },
      [{ loc: ['body', 'authentication', 'password'], msg: 'Field required', type: 'missing' }],
    ],
    [
      'an authentication without kind',
      { url: URL, authentication: { username: 'u', password: 'p' } },
      [{ loc: ['body', 'authentication', 'kind'], msg: 'Field required', type: 'missing' }],
    ],
    [
      'an unknown authentication kind as enum',
      { url: URL, authentication: { kind: 'digest', username: 'u', password: 'p' } },
      [
        {
          loc: ['body', 'authentication', 'kind'],
          msg: "Input should be 'basic', 'oauth_client_credentials', 'oauth_password'",
          type: 'enum',
          input: 'digest',
          ctx: { expected: 'basic, oauth_client_credentials, oauth_password' },
        },
      ],
    ],
    [
      'a property of another kind, without echoing it',
      { url: URL, authentication: { kind: 'basic', username: 'u', password: 'p', client_id: 'c' } },
      [{ loc: ['body', 'authentication', 'client_id'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
    ],
    [
      'OAuth client credentials without token_url and client_secret',
      { url: URL, authentication: { kind: 'oauth_client_credentials', client_id: 'c' } },
      [
        { loc: ['body', 'authentication', 'client_secret'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'authentication', 'token_url'], msg: 'Field required', type: 'missing' },
      ],
    ],
    [
      'a too-long password, without echoing it',
      { url: URL, authentication: { kind: 'basic', username: 'u', password: 'p'.repeat(1001) } },
      [
        {
          loc: ['body', 'authentication', 'password'],
          msg: 'String should have at most 1000 characters',
          type: 'string_too_long',
          ctx: { max_length: 1000 },
        },
      ],
    ],
    [
      'a client_secret sent as a number, without echoing it',
      {
        url: URL,
        authentication: { kind: 'oauth_client_credentials', client_id: 'c', client_secret: 123456, token_url: 'https://a.example/t' },
      },
      [{ loc: ['body', 'authentication', 'client_secret'], msg: 'Input should be a valid string', type: 'string_type' }],
    ],
    [
      'authentication given as a string',
      { url: URL, authentication: 'basic' },
      [{ loc: ['body', 'authentication'], msg: 'Input should be a valid dictionary or object', type: 'model_type', input: 'basic' }],
    ],
    [
      'active given as a string',
      { url: URL, active: 'yes' },
      [{ loc: ['body', 'active'], msg: 'Input should be a valid boolean', type: 'bool_type', input: 'yes' }],
    ],
    [
      'a signing secret chosen by the client, without echoing it',
      { url: URL, secret: 'whsec_1' },
      [{ loc: ['body', 'secret'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
    ],
  ]
  for (const [name, body, expected] of rejected)
    it(`rejects ${name}`, () => {
      expect(violationsOf(WebhookSubscriptionCreate, body)).to.deep.equal(expected)
    })
})
