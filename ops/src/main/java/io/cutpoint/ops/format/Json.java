package io.cutpoint.ops.format;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Collection;

/**
 * JSON output: protobuf messages through {@link JsonFormat} (proto field names, defaults included),
 * and small objects for summaries and events through Gson (one line each).
 *
 * <p>Ids (snapshot ids, epochs) are JSON strings everywhere, as {@link JsonFormat} prints every
 * 64-bit integer: {@link Obj#id} writes them so. Counts and measurements are numbers.
 */
public final class Json {

  private static final JsonFormat.Printer PRETTY =
      JsonFormat.printer().preservingProtoFieldNames().alwaysPrintFieldsWithNoPresence();
  private static final JsonFormat.Printer LINE = PRETTY.omittingInsignificantWhitespace();
  private static final Gson GSON =
      new GsonBuilder().disableHtmlEscaping().serializeNulls().create();

  private Json() {}

  /** A protobuf message, indented. */
  public static String pretty(MessageOrBuilder message) {
    try {
      return PRETTY.print(message);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("cannot print " + message.getClass().getSimpleName(), e);
    }
  }

  /** A protobuf message on one line. */
  public static String line(MessageOrBuilder message) {
    try {
      return LINE.print(message);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("cannot print " + message.getClass().getSimpleName(), e);
    }
  }

  /** A protobuf message as a JSON tree, to nest in an {@link Obj}. */
  public static JsonElement tree(MessageOrBuilder message) {
    return JsonParser.parseString(line(message));
  }

  /** Starts an object whose fields keep their insertion order. */
  public static Obj object() {
    return new Obj();
  }

  /**
   * A JSON object under construction. Values: strings, numbers (doubles rounded to 3 decimals; NaN
   * and infinities become null), booleans, null, collections, {@link Obj}, {@link JsonElement};
   * anything else as its {@code toString()}.
   */
  public static final class Obj {
    private final JsonObject fields = new JsonObject();

    public Obj put(String key, Object value) {
      fields.add(key, element(value));
      return this;
    }

    /** An id (snapshot id, epoch): a JSON string, as {@link JsonFormat} prints 64-bit integers. */
    public Obj id(String key, long id) {
      fields.addProperty(key, Long.toUnsignedString(id));
      return this;
    }

    /** Adds every field of {@code other}, in its order. */
    public Obj putAll(Obj other) {
      other.fields.entrySet().forEach(e -> fields.add(e.getKey(), e.getValue()));
      return this;
    }

    /** The object on one line. */
    @Override
    public String toString() {
      return GSON.toJson(fields);
    }
  }

  private static JsonElement element(Object v) {
    if (v == null) {
      return JsonNull.INSTANCE;
    }
    if (v instanceof Obj o) {
      return o.fields;
    }
    if (v instanceof JsonElement e) {
      return e;
    }
    if (v instanceof Boolean b) {
      return new JsonPrimitive(b);
    }
    if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        return JsonNull.INSTANCE;
      }
      BigDecimal rounded =
          BigDecimal.valueOf(d).setScale(3, RoundingMode.HALF_UP).stripTrailingZeros();
      return new JsonPrimitive(rounded.scale() < 0 ? rounded.setScale(0) : rounded);
    }
    if (v instanceof Number n) {
      return new JsonPrimitive(n);
    }
    if (v instanceof Collection<?> c) {
      JsonArray a = new JsonArray();
      c.forEach(x -> a.add(element(x)));
      return a;
    }
    return new JsonPrimitive(v.toString());
  }
}
