import { Role } from './role'

/**
 * The catalogue every instance starts with. Ids are fixed so that every instance and
 * every restart agree on them (seeding is idempotent).
 */
export const ROLE_CATALOGUE: readonly Role[] = [
  {
    type: 'role',
    id: '0b4f2a4e-5a0e-4a43-9a3e-2f3c1d9e7a01',
    name: 'Administrator',
    slug: 'administrator',
    description: 'Full read and write access to every resource.',
    permissions: { allow: ['*.read', '*.write'] },
    assignable_to: ['user', 'api-key-pair'],
    applies_to: [],
    is_standalone_assignable: true,
  },
  {
    type: 'role',
    id: '0b4f2a4e-5a0e-4a43-9a3e-2f3c1d9e7a02',
    name: 'Read only',
    slug: 'read-only',
    description: 'Read access to every resource, no changes.',
    permissions: { allow: ['*.read'] },
    assignable_to: ['user', 'api-key-pair'],
    applies_to: [],
    is_standalone_assignable: true,
  },
  {
    type: 'role',
    id: '0b4f2a4e-5a0e-4a43-9a3e-2f3c1d9e7a03',
    name: 'Gift card operator',
    slug: 'gift-card-operator',
    description: 'Activate, store and read gift cards, and read buyers.',
    permissions: { allow: ['gift-cards.read', 'gift-cards.write', 'buyers.read'] },
    assignable_to: ['api-key-pair'],
    applies_to: [],
    is_standalone_assignable: true,
  },
  {
    type: 'role',
    id: '0b4f2a4e-5a0e-4a43-9a3e-2f3c1d9e7a04',
    name: 'Webhook manager',
    slug: 'webhook-manager',
    description: 'Manage webhook subscriptions. An add-on to the read-only role.',
    permissions: { allow: ['webhook-subscriptions.read', 'webhook-subscriptions.write'] },
    assignable_to: ['user', 'api-key-pair'],
    applies_to: ['read-only'],
    is_standalone_assignable: false,
  },
]
