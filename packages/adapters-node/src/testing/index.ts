// Stand-ins for providers' APIs, for the tests of Orka and of those who embed its connectors.
export * from './stripe-mock'
export * from './stripe-double'
export * from './prism'
export * from './adyen-document'
export * from './adyen-double'
export * from './adyen-double-notifications'
