/** Wires checkout sessions: their use cases, Secure Fields' card entry, and the sweep of expired sessions. */
import { DependencyContainer, instanceCachingFactory } from 'tsyringe'
import {
  CheckoutSessionStore,
  Clock,
  IdGenerator,
  Mac,
  makeCreateCheckoutSession,
  makeDeleteCheckoutSession,
  makeGetCheckoutSession,
  makePutCheckoutSessionFields,
  makeSweepCheckoutSessions,
  makeUpdateCheckoutSession,
  PaymentMethodVault,
  RecordAudited,
  SecretBox,
  token,
} from '@orka/domain'
import { PeriodicJob } from '../periodic-job'
import { get, Wiring } from './context'

/** Purges expired checkout sessions (card data and all) in every instance. */
export const SessionSweeper = token<PeriodicJob>('SessionSweeper')

/** How often expired checkout sessions are purged: reads already treat them as gone. */
export const SESSION_SWEEP_EVERY_MS = 60_000

export const wireCheckoutSessions = (c: DependencyContainer, { log }: Wiring): void => {
  c.register(SessionSweeper, {
    useFactory: instanceCachingFactory(
      (c) =>
        new PeriodicJob(
          'checkout session sweep',
          makeSweepCheckoutSessions({ sessions: get(c, CheckoutSessionStore), clock: get(c, Clock) }),
          SESSION_SWEEP_EVERY_MS,
          log,
        ),
    ),
  })
}

export const checkoutSessionUseCases = (c: DependencyContainer) => {
  const sessions = { sessions: get(c, CheckoutSessionStore), clock: get(c, Clock) }
  const audited = get(c, RecordAudited)
  const mac = get(c, Mac)
  return {
    createCheckoutSession: makeCreateCheckoutSession({ ...sessions, ids: get(c, IdGenerator), audited }),
    getCheckoutSession: makeGetCheckoutSession(sessions),
    updateCheckoutSession: makeUpdateCheckoutSession({ ...sessions, audited, mac }),
    deleteCheckoutSession: makeDeleteCheckoutSession({ ...sessions, audited }),
    putCheckoutSessionFields: makePutCheckoutSessionFields({
      ...sessions,
      paymentMethods: get(c, PaymentMethodVault),
      box: get(c, SecretBox),
      mac,
    }),
  }
}
