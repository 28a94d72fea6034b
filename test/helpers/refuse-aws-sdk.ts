import { register } from 'node:module';

/**
 * `node --import` this file: from then on, importing any `@aws-sdk/*` package fails with
 * "refused: @aws-sdk/...". A process that runs to its end under it never loaded the AWS SDK.
 */
register('./refuse-aws-sdk-hooks.js', import.meta.url);
