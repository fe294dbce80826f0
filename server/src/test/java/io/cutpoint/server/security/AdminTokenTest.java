package io.cutpoint.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cutpoint.server.CoordinatorConfig;
import org.junit.jupiter.api.Test;

class AdminTokenTest {

  @Test
  void matchesOnlyTheExactToken() {
    AdminToken t = AdminToken.of("s3cret\n");
    assertThat(t.matches("s3cret")).isTrue();
    assertThat(t.matches("s3cre")).isFalse();
    assertThat(t.matches("s3cret2")).isFalse();
    assertThat(t.matches("S3CRET")).isFalse();
    assertThat(t.matches("")).isFalse();
    assertThat(t.matches(null)).isFalse();
  }

  @Test
  void neverShowsTheSecretNotEvenInsideTheConfig() {
    AdminToken t = AdminToken.of("s3cret");
    assertThat(t.toString()).doesNotContain("s3cret");
    assertThat(CoordinatorConfig.builder().adminToken(t).build().toString())
        .contains("AdminToken[redacted]")
        .doesNotContain("s3cret");
  }

  @Test
  void anEmptyOrSpacedTokenIsRefused() {
    assertThatThrownBy(() -> AdminToken.of(" \n")).hasMessage("the admin token is empty");
    assertThatThrownBy(() -> AdminToken.of(null)).hasMessage("the admin token is empty");
    assertThatThrownBy(() -> AdminToken.of("a b")).hasMessageContaining("whitespace");
  }
}
