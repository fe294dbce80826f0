package io.cutpoint.ops.admin;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads a snapshot id: a positive whole number. A bad one is a usage error (exit 2). */
public final class SnapshotIdConverter implements ITypeConverter<Long> {
  @Override
  public Long convert(String value) {
    long id;
    try {
      id = Long.parseUnsignedLong(value.trim());
    } catch (NumberFormatException e) {
      throw new TypeConversionException(
          "'" + value + "' is not a snapshot id (a positive whole number)");
    }
    if (id == 0) {
      throw new TypeConversionException("'" + value + "' is not a snapshot id (ids start at 1)");
    }
    if (id < 0) {
      throw new TypeConversionException(
          "'" + value + "' is not a snapshot id (ids are below 2^63)");
    }
    return id;
  }
}
