/**
 * @packageDocumentation
 * @module @solver-notifications/core
 */
export { createConfig } from './config/createConfig.js'
export { isSolverId } from './config/isSolverId.js'
export type { ConfigIssue } from './config/validateConfig.js'
export type { ConfigOfRegister, Register, RegisteredConfig } from './config/Register.js'
export type {
  ChainConfig,
  NotificationsConfig,
  NotificationsConfigInput,
  ResolvedSolver,
  ServiceEnigmaNotificationsConfig,
  ServiceNotificationsConfig,
  ServiceRasaNotificationsConfig,
  SolverConfig,
  SolverId,
  SolverProtocol,
} from './config/types.js'
export { ServiceError, isServiceError, type ServiceErrorCode } from './errors/ServiceError.js'
export { ServiceRequestError, isServiceRequestError } from './errors/ServiceRequestError.js'
export { buildEnigmaSubscribeFrame } from './protocol/enigma/buildEnigmaSubscribeFrame.js'
export { buildRasaSubscribeFrame } from './protocol/rasa/buildRasaSubscribeFrame.js'
export { classifyNotification } from './protocol/classifyNotification.js'
export { classifyPhase } from './protocol/classifyPhase.js'
export { normalizeNotification, type NormalizeContext } from './protocol/normalizeNotification.js'
export { DEFAULT_MAX_FRAME_BYTES, parseNotificationFrame } from './protocol/parseNotificationFrame.js'
export { formatNotification } from './protocol/formatNotification.js'
export { toNotification } from './protocol/toNotification.js'
export { contentKey, isSameNotification, notificationKey } from './protocol/notificationKey.js'
export type {
  EnigmaNotificationEnvelope,
  Notification,
  NotificationDocument,
  NotificationPhase,
  NotificationSearchFilter,
  NotificationType,
  PositionStateResponseSchema,
  Protocol,
  RawEnigmaPositionNotification,
  RawPositionNotification,
  RawRasaPositionNotification,
} from './protocol/types.js'
export type { SocketStatus } from './transport/TransportEvent.js'
export type { Lifecycle, LifecycleEvent } from './transport/Lifecycle.js'
export type { Logger } from './transport/Logger.js'
export { browserLifecycle } from './transport/browserLifecycle.js'
export { reactNativeLifecycle } from './transport/reactNativeLifecycle.js'
export type { AppStateLike, NetInfoLike, NetInfoStateLike } from './transport/reactNativeLifecycle.js'
export type { SocketClose } from './transport/TransportOptions.js'
export { isAddress, toAddress, type Address } from './utils/address.js'
export { redactUrl } from './utils/redactUrl.js'
export type { ClientStats } from './stream/ClientStats.js'
export type { ClientSnapshot, QuoteBookSnapshot, SocketSnapshot, StreamSnapshot } from './stream/ClientSnapshot.js'
export type { NotificationsClientOptions } from './stream/clientOptions.js'
export { createNotificationsClient, type NotificationsClient } from './client/createNotificationsClient.js'
export { createStreamClient, type CrossTabHandle, type DiagnosticsSeam, type NotificationsStreamClient, type ResumeOptions, type StreamOptions, type StreamParams } from './stream/createStreamClient.js'
export type { DiagnosticEvent } from './transport/Diagnostics.js'
export { memoryCheckpoints, webStorageCheckpoints, type CheckpointStore, type StorageLike } from './stream/resume/CheckpointStore.js'
export type { BackfillStatus, NotificationEvent, StatusEvent } from './stream/NotificationEvent.js'
export type { Continuity, ContinuityReason } from './transport/Continuity.js'
export type { IterableObservable } from './stream/IterableObservable.js'
export type { WebSocketConstructor, WebSocketLike } from './transport/WebSocketLike.js'
export type { SearchHttpOptions } from './search/postJson.js'
export { searchNotifications } from './search/searchNotifications.js'
export { searchPages } from './search/searchPages.js'
export type {
  EnigmaSearchParams,
  EnigmaSearchResult,
  NotificationSearchResult,
  RasaSearchParams,
  RasaSearchResult,
  SearchNotificationsParams,
  SearchOptions,
  SearchPagesOptions,
  SearchParamsBase,
  SearchParamsFor,
  SearchResultFor,
} from './search/types.js'
export type { QuoteBook, QuoteState, QuoteStatus, QuotesOptions, QuotesParams, WaitForOptions, WaitForParams } from './quotes/QuoteState.js'
export { NotificationsObserver, type NotificationsState, type UseNotificationsOptions } from './observers/NotificationsObserver.js'
export { QuotesObserver, type QuotesState, type UseQuotesOptions } from './observers/QuotesObserver.js'
