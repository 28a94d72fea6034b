import type { AreaRenderer } from '../rendering/area-renderer.js';
import type { ListParams } from '../query/list-params.js';
import { applyProjection } from '../query/projection.js';
import type { DocumentOutput } from './collaborators.js';

/** The client's `project` and `renderAreas`, applied to a presented document (list, get-one). */
export function requestedShape(areas: AreaRenderer, output: DocumentOutput, params: Pick<ListParams, 'project' | 'render'>): DocumentOutput {
  const projected = params.project ? applyProjection(output, params.project) : output;
  return params.render ? areas.renderDocument(projected, params.render) : projected;
}
