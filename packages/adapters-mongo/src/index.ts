/** Placeholder until the MongoDB issue: the package exists so the workspace layout is final. */
export const ADAPTERS_MONGO_AVAILABLE = false
