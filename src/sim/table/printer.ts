// What a resource's printer is: its column definitions and how one object becomes one row (kube's TableConvertor per type).
import type { ColumnDefinition } from './columns.js';

/** metav1.TableRowCondition (kube sets Completed on finished pods). */
export interface RowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface PrintedRow {
  /** One cell per column: strings, integers (int64 cells), booleans or null. */
  cells: unknown[];
  conditions?: RowCondition[];
}

/** Objects are the decoded stored JSON; printers read them defensively (a BOOKMARK's object is nearly empty). */
export type PrintableObject = Record<string, any>;

export interface Printer {
  /** All columns, -o wide ones included: the server always prints wide and kubectl hides priority > 0. */
  columns: ColumnDefinition[];
  row(obj: PrintableObject, now: number): PrintedRow;
}

/** Shorthand for printers whose row is only cells. */
export function printer(columns: ColumnDefinition[], cells: (obj: PrintableObject, now: number) => unknown[]): Printer {
  return { columns, row: (obj, now) => ({ cells: cells(obj, now) }) };
}

/** The containers of a pod template laid out as kube's layoutContainerCells does: names and images, comma-joined. */
export function containerCells(containers: { name?: string; image?: string }[] | undefined): [string, string] {
  const all = list<{ name?: string; image?: string }>(containers);
  return [all.map((c) => str(c?.name)).join(','), all.map((c) => str(c?.image)).join(',')];
}

/** An array field, [] when absent or not an array (the sim stores what it is sent, so printers never trust shapes). */
export function list<T = any>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** An int64 cell: Go prints int32 fields that are absent as 0. */
export function int(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0;
}

/** A string field, "" when absent (Go's zero value). */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
