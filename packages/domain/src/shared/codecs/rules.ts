import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { Checked } from './explain'

/**
 * Cross-field rule: a pure check returning the faulty fields and the rule they break (`msg`, a
 * statement of the domain), explained as `value_error`s.
 */
export interface RuleViolation {
  readonly path: readonly string[]
  readonly msg: string
}
/**
 * The leaf a broken rule reports on. Its explanation stands even when the field is absent:
 * "`amount` is required when `currency` is given" says more than "Field required" for a
 * field the schema itself leaves optional.
 */
export class RuleLeaf extends Checked<never> {
  constructor(rule: string) {
    super('rule', t.never.is, () => ({ type: 'value_error', rule }), {})
  }
}
export class Refined<C extends t.Mixed> extends t.Type<t.TypeOf<C>, t.OutputOf<C>> {
  constructor(
    readonly inner: C,
    readonly rules: readonly { readonly description: string; readonly check: (a: t.TypeOf<C>) => RuleViolation | undefined }[],
  ) {
    super(
      inner.name,
      inner.is,
      (u, c) =>
        E.chain((a: t.TypeOf<C>) => {
          const broken = rules.flatMap((r) => r.check(a) ?? [])
          if (broken.length === 0) return t.success(a)
          return t.failures(
            broken.map((v) => {
              const value = v.path.reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], a)
              const leaf = new RuleLeaf(v.msg)
              return { value, context: [...c, ...v.path.map((key) => ({ key, type: leaf, actual: value }))], message: v.msg }
            }),
          )
        })(inner.validate(u, c)),
      inner.encode,
    )
  }
}
