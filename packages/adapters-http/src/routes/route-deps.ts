import type { HttpDeps } from '../app'
import type { RouteMiddleware } from '../context'

export type RouteDeps = Pick<HttpDeps, 'log' | 'config' | 'useCases'>
export type RouteHandler = (deps: RouteDeps) => RouteMiddleware
