package model

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha512"
	"encoding/base64"
	"fmt"
	"testing"
)

// encryptPassword encodes plain as Kafka's PasswordEncoder does with its
// defaults (PBKDF2WithHmacSHA512, AES/CBC/PKCS5Padding, 128-bit key).
func encryptPassword(t *testing.T, secret, plain string) string {
	t.Helper()
	return encryptPasswordLength(t, secret, plain, len(plain))
}

// encryptPasswordLength is encryptPassword writing passwordLength as given.
func encryptPasswordLength(t *testing.T, secret, plain string, passwordLength int) string {
	t.Helper()
	salt, iv := []byte("0123456789abcdef"), []byte("fedcba9876543210")
	key, err := pbkdf2.Key(sha512.New, secret, salt, 4096, 16)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := aes.NewCipher(key)
	n := aes.BlockSize - len(plain)%aes.BlockSize
	buf := []byte(plain)
	for range n {
		buf = append(buf, byte(n))
	}
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(buf, buf)
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("keyFactoryAlgorithm:PBKDF2WithHmacSHA512,cipherAlgorithm:AES/CBC/PKCS5Padding,keyLength:128,salt:%s,iterations:4096,encryptedPassword:%s,passwordLength:%d,initializationVector:%s",
		b64(salt), b64(buf), passwordLength, b64(iv))
}

func TestDecryptPassword(t *testing.T) {
	blob := encryptPassword(t, "encoder-secret", "hunter2")
	if !IsEncryptedPassword(blob) || IsEncryptedPassword("hunter2") {
		t.Fatal("IsEncryptedPassword")
	}
	if got, err := DecryptPassword("encoder-secret", blob); err != nil || got != "hunter2" {
		t.Fatalf("decrypt: %q %v", got, err)
	}
	if got, err := DecryptPassword("other-secret", blob); err == nil {
		t.Fatalf("a wrong secret decrypted to %q", got)
	}
}

// TestDecryptPasswordCountsUTF16Units: Kafka's PasswordEncoder compares
// passwordLength with Java's String.length(): a character outside the Basic
// Multilingual Plane counts twice. (The real-Kafka proof is
// TestMigrateZKClusterToKRaft, whose broker config holds such a password.)
func TestDecryptPasswordCountsUTF16Units(t *testing.T) {
	const secret = "s3cret"
	plain := "pw-\U0001F511é" // 3 + 2 (a surrogate pair) + 1 units; 5 runes; 9 bytes
	for _, tc := range []struct {
		length int
		ok     bool
	}{{6, true}, {5, false}, {9, false}} {
		got, err := DecryptPassword(secret, encryptPasswordLength(t, secret, plain, tc.length))
		if tc.ok && (err != nil || got != plain) {
			t.Errorf("passwordLength %d: %q, %v; want %q", tc.length, got, err, plain)
		}
		if !tc.ok && err == nil {
			t.Errorf("passwordLength %d: accepted, Kafka refuses it", tc.length)
		}
	}
	if _, err := DecryptPassword("not-the-secret", encryptPasswordLength(t, secret, plain, 6)); err == nil {
		t.Error("a wrong secret was accepted")
	}
}
