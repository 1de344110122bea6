package model

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"unicode/utf16"
)

// IsEncryptedPassword reports whether a config value is Kafka's encoded
// password blob (PasswordEncoder's "key:value,..." form).
func IsEncryptedPassword(v string) bool {
	return strings.Contains(v, "encryptedPassword:") && strings.Contains(v, "salt:")
}

// DecryptPassword decodes a password config encrypted with
// password.encoder.secret, as the KRaft controller does during Kafka's
// migration: a PBKDF2 key from the secret, then AES (CBC with PKCS#5
// padding, or GCM), and the decoded length must equal passwordLength.
// It lives in the model because migrate (which writes the plaintext) and
// verify (which compares it with KRaft's) must decrypt alike.
func DecryptPassword(secret, blob string) (string, error) {
	f := map[string]string{}
	for _, kv := range strings.Split(blob, ",") {
		k, v, ok := strings.Cut(kv, ":")
		if !ok {
			return "", errors.New("malformed encoded password")
		}
		f[k] = v
	}
	b64 := func(k string) ([]byte, error) {
		b, err := base64.StdEncoding.DecodeString(f[k])
		if err != nil || len(b) == 0 {
			return nil, fmt.Errorf("field %s is not base64", k)
		}
		return b, nil
	}
	salt, err := b64("salt")
	if err != nil {
		return "", err
	}
	enc, err := b64("encryptedPassword")
	if err != nil {
		return "", err
	}
	iv, err := b64("initializationVector")
	if err != nil {
		return "", err
	}
	iters, err1 := strconv.Atoi(f["iterations"])
	keyBits, err2 := strconv.Atoi(f["keyLength"])
	plen, err3 := strconv.Atoi(f["passwordLength"])
	if err := errors.Join(err1, err2, err3); err != nil || iters <= 0 || keyBits <= 0 || keyBits%8 != 0 || keyBits > 512 {
		return "", errors.New("bad iterations, keyLength or passwordLength")
	}
	var h func() hash.Hash
	switch f["keyFactoryAlgorithm"] {
	case "PBKDF2WithHmacSHA512", "":
		h = sha512.New
	case "PBKDF2WithHmacSHA1":
		h = sha1.New
	default:
		return "", fmt.Errorf("key factory %q is not supported", f["keyFactoryAlgorithm"])
	}
	key, err := pbkdf2.Key(h, secret, salt, iters, keyBits/8)
	if err != nil {
		return "", err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return "", err
	}
	var plain []byte
	switch f["cipherAlgorithm"] {
	case "AES/CBC/PKCS5Padding", "":
		if len(iv) != aes.BlockSize || len(enc)%aes.BlockSize != 0 {
			return "", errors.New("bad IV or ciphertext length")
		}
		plain = make([]byte, len(enc))
		cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, enc)
		n := int(plain[len(plain)-1])
		if n == 0 || n > aes.BlockSize || n > len(plain) {
			return "", errors.New("wrong secret (bad padding)")
		}
		for _, b := range plain[len(plain)-n:] {
			if int(b) != n {
				return "", errors.New("wrong secret (bad padding)")
			}
		}
		plain = plain[:len(plain)-n]
	case "AES/GCM/NoPadding":
		g, err := cipher.NewGCMWithNonceSize(block, len(iv))
		if err != nil {
			return "", err
		}
		if plain, err = g.Open(nil, iv, enc, nil); err != nil {
			return "", errors.New("wrong secret (authentication failed)")
		}
	default:
		return "", fmt.Errorf("cipher %q is not supported", f["cipherAlgorithm"])
	}
	s := string(plain)
	if utf16Len(s) != plen {
		return "", errors.New("wrong secret (decoded length differs)")
	}
	return s, nil
}

// utf16Len is Java's String.length() of s decoded as UTF-8, what Kafka's
// PasswordEncoder compares with passwordLength: a character outside the
// Basic Multilingual Plane counts twice, and an invalid byte once (range
// yields U+FFFD for it, and Java's decoder a U+FFFD too).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
