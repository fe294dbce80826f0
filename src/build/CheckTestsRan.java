import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Fails the build when a module compiled a test class that neither Surefire nor Failsafe ran.
 *
 * <p>A test class is a concrete class in {@code test-classes} whose bytecode uses one of the test
 * annotations below (JUnit Jupiter, jqwik, Jazzer). It ran if a Surefire or Failsafe XML report
 * names it as a suite or as the class of a test case. A class whose name matches neither plugin's
 * includes ({@code *Test}, {@code Test*}, {@code *Tests}, {@code *TestCase}; {@code *IT}, {@code IT*},
 * {@code *ITCase}) compiles and passes silently without this check.
 *
 * <p>Run by each module's {@code verify} phase with the JDK's source launcher:
 * {@code java CheckTestsRan.java <build dir> <test> <it.test> <skipTests> <skipITs>}, where the last
 * four are the Maven properties of those names (an unset property arrives empty, or as its own
 * {@code ${...}} text). A run narrowed with {@code -Dtest}/{@code -Dit.test} or one that skips the
 * tests is not checked; {@code -DskipITs} drops the Failsafe-named classes from the check.
 */
public final class CheckTestsRan {

  private static final Set<String> TEST_ANNOTATIONS = Set.of(
      "Lorg/junit/jupiter/api/Test;",
      "Lorg/junit/jupiter/api/RepeatedTest;",
      "Lorg/junit/jupiter/api/TestFactory;",
      "Lorg/junit/jupiter/api/TestTemplate;",
      "Lorg/junit/jupiter/params/ParameterizedTest;",
      "Lnet/jqwik/api/Property;",
      "Lnet/jqwik/api/Example;",
      "Lcom/code_intelligence/jazzer/junit/FuzzTest;");

  private static final Pattern REPORTED = Pattern.compile(
      "<testsuite\\b[^>]*?\\bname=\"([^\"]+)\"|<testcase\\b[^>]*?\\bclassname=\"([^\"]+)\"");

  private static final Pattern FAILSAFE_NAME = Pattern.compile("(IT.*|.*IT|.*ITCase)");

  private static final int ACC_INTERFACE = 0x0200;
  private static final int ACC_ABSTRACT = 0x0400;

  public static void main(String[] args) throws IOException {
    if (args.length != 5) {
      System.err.println("usage: java CheckTestsRan.java <build dir> <test> <it.test> <skipTests> <skipITs>");
      System.exit(2);
    }
    Path build = Path.of(args[0]);
    boolean narrowed = isSet(args[1]) || isSet(args[2]);
    boolean skipTests = isTrue(args[3]);
    boolean skipITs = isTrue(args[4]);
    if (narrowed || skipTests) {
      System.out.println("[tests-ran] not checked: " + (skipTests ? "tests skipped" : "a narrowed run (-Dtest / -Dit.test)"));
      return;
    }
    Set<String> compiled = testClasses(build.resolve("test-classes"));
    if (skipITs) {
      compiled.removeIf(name -> FAILSAFE_NAME.matcher(simpleName(name)).matches());
    }
    Set<String> reported = new TreeSet<>();
    reported.addAll(reportedClasses(build.resolve("surefire-reports")));
    reported.addAll(reportedClasses(build.resolve("failsafe-reports")));
    List<String> notRun = new ArrayList<>();
    for (String name : compiled) {
      if (!reported.contains(name)) {
        notRun.add(name);
      }
    }
    if (!notRun.isEmpty()) {
      System.err.println("[tests-ran] " + notRun.size() + " compiled test class(es) in " + build
          + " were not run by Surefire or Failsafe:");
      notRun.forEach(name -> System.err.println("[tests-ran]   " + name));
      System.err.println("[tests-ran] Name a unit test *Test (Surefire) or an end-to-end test *IT (Failsafe, after package).");
      System.exit(1);
    }
    System.out.println("[tests-ran] all " + compiled.size() + " test classes in " + build + " ran");
  }

  private static boolean isSet(String property) {
    return !property.isBlank() && !property.startsWith("${");
  }

  private static boolean isTrue(String property) {
    return property.equalsIgnoreCase("true");
  }

  private static String simpleName(String binaryName) {
    return binaryName.substring(binaryName.lastIndexOf('.') + 1);
  }

  private static Set<String> testClasses(Path dir) throws IOException {
    Set<String> names = new TreeSet<>();
    if (!Files.isDirectory(dir)) {
      return names;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
        try (InputStream in = Files.newInputStream(file)) {
          String name = testClassName(new DataInputStream(in));
          if (name != null) {
            names.add(name);
          }
        }
      }
    }
    return names;
  }

  /** The binary name of a concrete class that uses a test annotation, or null. */
  private static String testClassName(DataInputStream in) throws IOException {
    if (in.readInt() != 0xCAFEBABE) {
      return null;
    }
    in.readUnsignedShort(); // minor
    in.readUnsignedShort(); // major
    int count = in.readUnsignedShort();
    String[] utf8 = new String[count];
    int[] classNameIndex = new int[count];
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      switch (tag) {
        case 1 -> utf8[i] = in.readUTF();
        case 7 -> classNameIndex[i] = in.readUnsignedShort();
        case 8, 16, 19, 20 -> in.readUnsignedShort();
        case 15 -> { in.readUnsignedByte(); in.readUnsignedShort(); }
        case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
        case 5, 6 -> { in.readLong(); i++; }
        default -> throw new IOException("unknown constant pool tag " + tag);
      }
    }
    int access = in.readUnsignedShort();
    int thisClass = in.readUnsignedShort();
    if ((access & (ACC_INTERFACE | ACC_ABSTRACT)) != 0) {
      return null;
    }
    for (String constant : utf8) {
      if (constant != null && TEST_ANNOTATIONS.contains(constant)) {
        return utf8[classNameIndex[thisClass]].replace('/', '.');
      }
    }
    return null;
  }

  private static Set<String> reportedClasses(Path dir) throws IOException {
    Set<String> names = new TreeSet<>();
    if (!Files.isDirectory(dir)) {
      return names;
    }
    try (Stream<Path> files = Files.list(dir)) {
      for (Path report : (Iterable<Path>) files
          .filter(f -> f.getFileName().toString().matches("TEST-.*\\.xml"))::iterator) {
        Matcher m = REPORTED.matcher(Files.readString(report));
        while (m.find()) {
          names.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
      }
    }
    return names;
  }
}
