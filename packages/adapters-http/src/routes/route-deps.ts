import type { HttpDeps } from '../types'
import type { RouteMiddleware } from '../context'

export type RouteDeps = Pick<HttpDeps, 'log' | 'config' | 'useCases'>
export type RouteHandler = (deps: RouteDeps) => RouteMiddleware
