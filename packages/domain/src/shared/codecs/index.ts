// The codec kit every resource is built from, one file per kind of codec.
export { Checked, type Explanation, type FaultType } from './explain'
export * from './strings'
export * from './scalars'
export * from './nullable-and-lists'
export * from './objects'
export * from './rules'
export * from './unsupported'
export * from './no-items'
