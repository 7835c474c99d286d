package dev.membership.architecture.breach;

import org.springframework.boot.autoconfigure.AutoConfiguration;

/** A breach: an auto-configuration open to extension. */
@AutoConfiguration
public class OpenAutoConfiguration {

}
