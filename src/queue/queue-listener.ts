// The listener moved to src/postgres, where the event store's followers use it too.
export { NotificationListener as QueueListener, type ListenerHandler } from '../postgres/notification-listener.js';
