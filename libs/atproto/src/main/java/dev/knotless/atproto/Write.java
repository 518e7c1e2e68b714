package dev.knotless.atproto;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** One write of an {@code applyWrites} call. Values are immutable once handed over. */
public sealed interface Write {

  /** The collection the record is in. */
  String collection();

  /** The record key. */
  String rkey();

  /** Creates a record; fails if one is there (the reference PDS answers 500). */
  static Write create(String collection, String rkey, ObjectNode value) {
    return new Create(collection, rkey, value);
  }

  /** Replaces a record that is there. */
  static Write update(String collection, String rkey, ObjectNode value) {
    return new Update(collection, rkey, value);
  }

  /** Deletes a record that is there. */
  static Write delete(String collection, String rkey) {
    return new Delete(collection, rkey);
  }

  /** See {@link Write#create}. */
  record Create(String collection, String rkey, ObjectNode value) implements Write {}

  /** See {@link Write#update}. */
  record Update(String collection, String rkey, ObjectNode value) implements Write {}

  /** See {@link Write#delete}. */
  record Delete(String collection, String rkey) implements Write {}
}
