/** A port's identity: a plain symbol carrying its interface type, so the domain never imports a container. */
export type Token<T> = symbol & { readonly __port?: T }
export const token = <T>(name: string): Token<T> => Symbol(name)
