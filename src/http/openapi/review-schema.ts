import type { JsonSchema } from '../../content/fields/value-schema.js';

/** A draft's review as its editors read it (`cmsReview`). */
export const reviewSchema: JsonSchema = {
  type: 'object',
  required: ['stage', 'reviewers', 'updatedAt'],
  additionalProperties: false,
  description: 'A draft\'s review stage and reviewers (types with `options.review`): shown only to callers who may edit the draft',
  properties: {
    stage: { type: 'string' },
    reviewers: { type: 'array', items: { type: 'string' }, description: 'User ids' },
    updatedAt: { type: ['string', 'null'], format: 'date-time' },
  },
};
