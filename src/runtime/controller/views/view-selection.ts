// Which resources feed a view. The object's views annotation, when present, decides alone (it
// can both add a resource to an opt-in view and take it out of an "all" view); otherwise the
// view's own selection does: everything, or objects opted in by label or ingress class.
import { VIEWS_ANNOTATION, type ViewSelection } from '../../../config/view-config.ts';
import { splitList } from '../sources/annotations.ts';
import type { SourceObject } from './source-object.ts';

/** The view names the object's annotation lists, or undefined when it has none. */
export function annotatedViews(source: SourceObject): string[] | undefined {
  const value = source.annotations[VIEWS_ANNOTATION];
  return value === undefined ? undefined : splitList(value);
}

export function selectedForView(view: { name: string; selection: ViewSelection }, source: SourceObject): boolean {
  const annotated = annotatedViews(source);
  if (annotated) return annotated.includes(view.name);
  const s = view.selection;
  if (s.mode === 'all') return true;
  const labels = Object.entries(s.labels ?? {});
  if (labels.length > 0 && labels.every(([k, v]) => source.labels[k] === v)) return true;
  return source.ingressClass !== undefined && (s.ingressClasses ?? []).includes(source.ingressClass);
}
