// Table column definitions (metav1.TableColumnDefinition) and the columns every printer shares.
import { OBJECT_META } from './descriptions.js';

/** One column of a Table header; priority 1 marks the columns kubectl shows only with -o wide. */
export interface ColumnDefinition {
  name: string;
  /** OpenAPI type: string, integer, number, boolean, date. */
  type: string;
  format: string;
  description: string;
  priority: number;
}

export function column(name: string, type: string, description: string, opts: { format?: string; priority?: number } = {}): ColumnDefinition {
  return { name, type, format: opts.format ?? '', description, priority: opts.priority ?? 0 };
}

/** Printed under priority 1: kubectl shows it only with -o wide. */
export function wide(c: ColumnDefinition): ColumnDefinition {
  return { ...c, priority: 1 };
}

export const NAME_COLUMN = column('Name', 'string', OBJECT_META.name, { format: 'name' });
export const AGE_COLUMN = column('Age', 'string', OBJECT_META.creationTimestamp);
export const CONTAINERS_COLUMN = wide(column('Containers', 'string', 'Names of each container in the template.'));
export const IMAGES_COLUMN = wide(column('Images', 'string', 'Images referenced by each container in the template.'));
