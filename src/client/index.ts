/**
 * The typed client (`import { createCmsClient } from 'cms-server/client'`): standard fetch,
 * FormData and Blob only, so it runs in browsers and Node.js 20+. It imports nothing of the server.
 */
export {
  CmsClient,
  createCmsClient,
  type Audience,
  type AutocroppedImage,
  type CmsClientOptions,
  type CropFields,
  type FieldFilter,
  type GetOptions,
  type IdempotentOptions,
  type ListAnswer,
  type ListQuery,
  type Mode,
  type PieceTypeShapes,
  type Projected,
  type ReadShape,
  type ReadableType,
  type ScheduledAction,
  type ScheduledShape,
  type ShareLink,
  type UploadedAttachment,
  type VersionOptions,
  type WriteOptions,
} from './cms-client.js';
export { CmsError } from './cms-error.js';
export { subscribeToLivePreview, type LivePreviewMessage, type LivePreviewOptions, type LivePreviewReadyMessage } from './live-preview.js';
