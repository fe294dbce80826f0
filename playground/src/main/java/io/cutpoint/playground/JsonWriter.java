package io.cutpoint.playground;

/** A minimal JSON writer (the page parses what the compiled code returns); no dependency. */
final class JsonWriter {

  private final StringBuilder out = new StringBuilder();
  private boolean first = true;

  JsonWriter open(char bracket) {
    comma();
    out.append(bracket);
    first = true;
    return this;
  }

  JsonWriter close(char bracket) {
    out.append(bracket);
    first = false;
    return this;
  }

  JsonWriter key(String k) {
    comma();
    string(k);
    out.append(':');
    first = true;
    return this;
  }

  JsonWriter value(String s) {
    comma();
    string(s);
    return this;
  }

  JsonWriter value(long v) {
    comma();
    out.append(v);
    return this;
  }

  JsonWriter value(double v) {
    comma();
    out.append(v);
    return this;
  }

  JsonWriter value(boolean v) {
    comma();
    out.append(v);
    return this;
  }

  private void comma() {
    if (!first) {
      out.append(',');
    }
    first = false;
  }

  private void string(String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        String hex = Integer.toHexString(c);
        out.append("\\u");
        for (int k = hex.length(); k < 4; k++) {
          out.append('0');
        }
        out.append(hex);
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
