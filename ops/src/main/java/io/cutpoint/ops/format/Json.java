package io.cutpoint.ops.format;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * JSON output: protobuf messages through {@link JsonFormat} (proto field names, defaults
 * included), and small hand-built objects for summaries and events (one line each).
 */
public final class Json {

  private static final JsonFormat.Printer PRETTY =
      JsonFormat.printer().preservingProtoFieldNames().alwaysPrintFieldsWithNoPresence();
  private static final JsonFormat.Printer LINE = PRETTY.omittingInsignificantWhitespace();

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

  /** Starts an object whose fields keep their insertion order. */
  public static Obj object() {
    return new Obj();
  }

  /** A JSON object under construction. Values: strings, numbers, booleans, null, lists, Obj, {@link Raw}. */
  public static final class Obj {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    public Obj put(String key, Object value) {
      fields.put(key, value);
      return this;
    }

    /** Adds every field of {@code other}, in its order. */
    public Obj putAll(Obj other) {
      fields.putAll(other.fields);
      return this;
    }

    /** The object on one line. */
    @Override
    public String toString() {
      StringBuilder b = new StringBuilder();
      write(b, this);
      return b.toString();
    }
  }

  /** Already-encoded JSON (e.g. from {@link #line}), inserted as is. */
  public record Raw(String json) {}

  private static void write(StringBuilder b, Object v) {
    if (v == null) {
      b.append("null");
    } else if (v instanceof Obj o) {
      b.append('{');
      Iterator<Map.Entry<String, Object>> it = o.fields.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<String, Object> e = it.next();
        string(b, e.getKey());
        b.append(':');
        write(b, e.getValue());
        if (it.hasNext()) {
          b.append(',');
        }
      }
      b.append('}');
    } else if (v instanceof Raw r) {
      b.append(r.json());
    } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long) {
      b.append(v);
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        b.append("null");
      } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
        b.append((long) d);
      } else {
        b.append(String.format(Locale.ROOT, "%.3f", d));
      }
    } else if (v instanceof Number n) {
      b.append(n);
    } else if (v instanceof List<?> list) {
      b.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          b.append(',');
        }
        write(b, list.get(i));
      }
      b.append(']');
    } else {
      string(b, v.toString());
    }
  }

  private static void string(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
