import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { context, Span, SpanKind, SpanStatusCode, trace, Tracer } from '@opentelemetry/api'
import { DependencyContainer } from 'tsyringe'
import { CardConnectors, GiftCardConnectors } from '@orka/domain'
import { outcomeOf } from './metrics'
import { TRACER_NAME } from './tracing'

/**
 * The spans the app makes (connector calls, webhook attempts); the HTTP layer makes the request's
 * and the operation's. Every attribute is ours: a connector's definition id, an operation name,
 * an outcome tag, an id. Never an argument of the call (card data, PINs, amounts a merchant
 * sent) nor an answer's text.
 */

export const tracer = (): Tracer => trace.getTracer(TRACER_NAME)

type Task = () => Promise<E.Either<{ readonly _tag: string }, unknown>>

/** Runs `task` inside `span` (so that storage commands it makes are its children), then ends the span with its outcome. */
export const runInSpan = <A>(span: Span, task: () => Promise<A>, outcome: (a: A) => string): Promise<A> =>
  context.with(trace.setSpan(context.active(), span), task).then(
    (a) => {
      span.setAttribute('orka.outcome', outcome(a))
      span.end()
      return a
    },
    (e: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.name : 'thrown' })
      span.end()
      throw e
    },
  )

/** Every task-returning method of a connector, each call a client span `connector <method>`. */
const spanned = <T extends object>(target: T, kind: 'card' | 'gift_card', connector: string): T =>
  new Proxy(target, {
    get(t, prop, receiver) {
      const v: unknown = Reflect.get(t, prop, receiver)
      if (typeof v !== 'function' || typeof prop !== 'string' || prop === 'constructor') return v
      const fn = v as (...args: unknown[]) => unknown
      return (...args: unknown[]) => {
        const task = fn.apply(t, args)
        if (typeof task !== 'function') return task
        return () => {
          const span = tracer().startSpan(`connector ${prop}`, {
            kind: SpanKind.CLIENT,
            attributes: { 'orka.connector.kind': kind, 'orka.connector': connector, 'orka.connector.operation': prop },
          })
          return runInSpan(span, task as Task, outcomeOf)
        }
      }
    },
  })

const spannedConnectors = <C extends CardConnectors | GiftCardConnectors>(connectors: C, kind: 'card' | 'gift_card'): C =>
  ({
    forDefinition: (id: string) => O.map((c: object) => spanned(c, kind, id))(connectors.forDefinition(id)),
  }) as C

/**
 * Tracing on: the connectors the container registered (measured or not), each call a span.
 * Registered again, last, before anything resolved them: the container is left as it is without tracing.
 */
export const traceConnectors = (c: DependencyContainer): void => {
  c.register(CardConnectors, { useValue: spannedConnectors(c.resolve<CardConnectors>(CardConnectors), 'card') })
  c.register(GiftCardConnectors, { useValue: spannedConnectors(c.resolve<GiftCardConnectors>(GiftCardConnectors), 'gift_card') })
}
