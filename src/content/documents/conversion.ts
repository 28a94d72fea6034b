import type { AppConfig } from '../app-config.js';
import type { Principal } from '../../core/principal.js';
import type { ConvertContext } from '../fields/field-type.js';
import type { FieldTypeLookup } from '../fields/convert-schema.js';
import type { SanitizedPieceType } from '../types/piece-type.js';
import type { StorageSession } from '../../storage/storage-adapter.js';
import type { WritePasswords } from '../fields/password-hasher.js';
import { canReadType } from '../access/permissions.js';
import { convertSchema, newInstanceValues, throwIfErrors } from '../fields/convert-schema.js';
import { keepStoredValues } from '../fields/keep-stored-values.js';
import { newId, type Mode } from '../../core/ids.js';
import { findReferenced } from './related-refs.js';
import { recordOf } from './attachment-refs.js';

/** What a conversion converts for: the version written, by whom, in which transaction. */
export interface ConversionTarget {
  readonly type: SanitizedPieceType;
  readonly locale: string | null;
  readonly mode: Mode | null;
  readonly principal: Principal;
  readonly session: StorageSession;
  /** The hashes of this write's passwords; see `TransactionRunner.runWithPasswords`. */
  readonly passwords: WritePasswords;
  /** Id source for new areas, widgets and items; see `replayedIds`. */
  readonly ids?: () => string;
}

/** Input to stored values through the field registry: conversion, validation, defaults. */
export class Conversion {
  readonly #config: AppConfig;
  readonly #fieldTypes: FieldTypeLookup;

  constructor(deps: { config: AppConfig; fieldTypes: FieldTypeLookup }) {
    this.#config = deps.config;
    this.#fieldTypes = deps.fieldTypes;
  }

  /**
   * Converts input through the type's schema. Without `only`, every field is converted and
   * absent ones take their defaults (insert, replace); with it, only those fields (patch).
   */
  async convert(
    args: ConversionTarget & { input: Record<string, unknown>; existing?: Record<string, unknown>; only?: ReadonlySet<string> },
  ): Promise<Record<string, unknown>> {
    const ctx = this.#convertContext(args, args.ids ?? newId);
    const { values, errors } = await convertSchema({
      fields: args.type.fields,
      input: args.input,
      existing: args.existing,
      ctx,
      registry: this.#fieldTypes,
      only: args.only,
    });
    throwIfErrors(errors);
    args.passwords.throwIfPending();
    return values;
  }

  /** What a field of the type holds when nothing was given for it. */
  defaultValue(type: SanitizedPieceType, fieldName: string): unknown {
    const field = type.fieldsByName.get(fieldName);
    return field ? this.#fieldTypes.get(field.type)?.defaultValue(field, newId) : null;
  }

  /** What a new document of the type starts as, as `_newInstance` answers it (`newInstanceValues`). */
  newInstance(type: SanitizedPieceType): Record<string, unknown> {
    return newInstanceValues(type.fields, this.#fieldTypes, newId);
  }

  /**
   * Stored content copied into a version that exists (a restore from history, a localize with
   * `update`) keeps, at any depth, the value stored now of each field this caller may not set:
   * the relationships to types it may not read, as its PATCH keeps them, and password hashes.
   * `values` is changed in place.
   */
  keepStoredValues(args: { type: SanitizedPieceType; principal: Principal; values: Record<string, unknown>; current: Readonly<Record<string, unknown>> }): void {
    const { type, principal, values, current } = args;
    keepStoredValues({ fields: type.fields, values, current, canRead: this.#canRead(principal), registry: this.#fieldTypes, widgetTypes: this.#config.widgetTypes });
  }

  /** Whether the caller may read documents of a type: whether it may judge relationships to them. */
  #canRead(principal: Principal): (type: string) => boolean {
    return (typeName) => {
      const pieceType = this.#config.pieceTypes.get(typeName);
      return pieceType !== undefined && canReadType(principal, pieceType);
    };
  }

  #convertContext(args: ConversionTarget, ids: () => string): ConvertContext {
    const { locale, mode, principal, session } = args;
    const ctx: ConvertContext = {
      locale,
      mode,
      principal,
      newId: ids,
      widgetTypes: this.#config.widgetTypes,
      passwords: args.passwords,
      limits: this.#config.limits,
      sanitizedCharacters: { count: 0 },
      relationships: {
        resolve: (type, refs) => this.#resolveRelated(session, type, refs, args),
        canRead: this.#canRead(principal),
      },
      attachments: {
        find: async (id) => {
          const [found] = await session.attachments.find([id]);
          return found ? recordOf(found) : null;
        },
      },
      convertSchema: async (fields, input, existing) => {
        const { values, errors } = await convertSchema({ fields, input, existing, ctx, registry: this.#fieldTypes });
        throwIfErrors(errors);
        return values;
      },
    };
    return ctx;
  }

  /** Related documents the caller can see in the same locale and mode, by id or title, in the order asked for. */
  async #resolveRelated(
    session: StorageSession,
    typeName: string,
    refs: readonly string[],
    target: Pick<ConversionTarget, 'locale' | 'mode' | 'principal'>,
  ): Promise<{ cmsDocId: string; values: Readonly<Record<string, unknown>> }[]> {
    const { locale, mode, principal } = target;
    const type = this.#config.pieceTypes.get(typeName);
    if (!type || !canReadType(principal, type)) return [];
    return findReferenced(refs, { store: session.documents, config: this.#config, type, principal, locale, mode });
  }
}
