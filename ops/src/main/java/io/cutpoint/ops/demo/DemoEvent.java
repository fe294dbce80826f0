package io.cutpoint.ops.demo;

import io.cutpoint.ops.format.Json;

/**
 * Something the demo shows: a line for people and an object for machines.
 *
 * @param type short name ({@code snapshot}, {@code crash}, {@code rollback}, ...)
 * @param bad true for a violation (shown prominently)
 */
public record DemoEvent(String type, long atMs, String text, Json.Obj json, boolean bad) {

  static DemoEvent of(String type, String text, Json.Obj fields) {
    long now = System.currentTimeMillis();
    Json.Obj obj = Json.object().put("event", type).put("at_ms", now);
    return new DemoEvent(type, now, text, fields == null ? obj : merge(obj, fields), false);
  }

  static DemoEvent bad(String type, String text, Json.Obj fields) {
    DemoEvent e = of(type, text, fields);
    return new DemoEvent(e.type, e.atMs, e.text, e.json, true);
  }

  /** The same event with another text and extra fields. */
  DemoEvent withText(String newText, Json.Obj extra) {
    return new DemoEvent(type, atMs, newText, json.putAll(extra), bad);
  }

  private static Json.Obj merge(Json.Obj head, Json.Obj fields) {
    return head.putAll(fields);
  }
}
