import * as TE from 'fp-ts/TaskEither'
import * as t from 'io-ts'
import { closed, literal, str } from '../shared/codecs'
import { CARD_SCHEMES } from './card-number'

export const CardSchemeDefinition = closed(
  'CardSchemeDefinition',
  { type: literal('card-scheme-definition'), id: str, icon_url: str, display_name: str },
  {},
)
export type CardSchemeDefinition = t.TypeOf<typeof CardSchemeDefinition>
export const CardSchemeDefinitions = closed('CardSchemeDefinitions', { items: t.readonlyArray(CardSchemeDefinition) }, {})
export type CardSchemeDefinitions = t.TypeOf<typeof CardSchemeDefinitions>

/** An icon Orka can give without a CDN: the scheme's name on a card outline, as a data URL. */
const iconOf = (name: string): string =>
  `data:image/svg+xml,${encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" width="48" height="32" viewBox="0 0 48 32"><rect x="0.5" y="0.5" width="47" height="31" rx="4" fill="#fff" stroke="#8a8a8a"/><text x="24" y="19.5" font-family="sans-serif" font-size="7" text-anchor="middle" fill="#222">${name}</text></svg>`,
  )}`

/** The schemes Orka recognises from a card's number (`GET /card-scheme-definitions`): the card rules' own table. */
export const CARD_SCHEME_DEFINITIONS: CardSchemeDefinitions = {
  items: CARD_SCHEMES.map((s) => ({
    type: 'card-scheme-definition',
    id: s.id,
    icon_url: iconOf(s.displayName),
    display_name: s.displayName,
  })),
}

/** `GET /card-scheme-definitions`: the same for every caller. */
export const makeListCardSchemeDefinitions = () => (): TE.TaskEither<never, CardSchemeDefinitions> => TE.right(CARD_SCHEME_DEFINITIONS)
