package sim

// dictionary is a small dictionary of the library's core texts by
// language. Texts it does not hold are "translated" by falling back to the
// English text, which is what the provider does for much of its library.
type dictionary map[string]map[string]string

func newDictionary() dictionary {
	return dictionary{
		"What is your age?": {
			"es": "¿Cuál es su edad?", "de": "Wie alt sind Sie?", "fr": "Quel âge avez-vous ?",
			"it": "Quanti anni ha?", "nl": "Wat is uw leeftijd?", "pt": "Qual é a sua idade?", "ja": "あなたの年齢を教えてください。",
		},
		"Are you...?": {
			"es": "¿Usted es...?", "de": "Sind Sie...?", "fr": "Vous êtes... ?",
			"it": "Lei è...?", "nl": "Bent u...?", "pt": "Você é...?", "ja": "あなたの性別は？",
		},
		"In which region do you live?": {
			"es": "¿En qué región vive?", "de": "In welcher Region wohnen Sie?", "fr": "Dans quelle région habitez-vous ?",
			"it": "In quale regione vive?", "nl": "In welke regio woont u?", "pt": "Em qual região você mora?", "ja": "お住まいの地域はどちらですか？",
		},
		"What is your total annual household income before taxes?": {
			"es": "¿Cuál es el ingreso anual total de su hogar antes de impuestos?",
			"de": "Wie hoch ist das jährliche Bruttoeinkommen Ihres Haushalts?",
			"fr": "Quel est le revenu annuel brut total de votre foyer ?",
			"it": "Qual è il reddito annuo lordo complessivo della sua famiglia?",
			"nl": "Wat is het totale bruto jaarinkomen van uw huishouden?",
			"pt": "Qual é a renda anual bruta total do seu domicílio?",
		},
		"What is the highest level of education you have completed?": {
			"es": "¿Cuál es el nivel de estudios más alto que ha completado?",
			"de": "Was ist Ihr höchster Bildungsabschluss?",
			"fr": "Quel est le plus haut niveau d'études que vous avez atteint ?",
			"it": "Qual è il titolo di studio più alto che ha conseguito?",
			"nl": "Wat is uw hoogst voltooide opleiding?",
			"pt": "Qual é o seu maior nível de escolaridade concluído?",
		},
		"Which of the following best describes your current employment status?": {
			"es": "¿Cuál de las siguientes opciones describe mejor su situación laboral actual?",
			"de": "Welche der folgenden Angaben beschreibt Ihre derzeitige berufliche Situation am besten?",
			"fr": "Laquelle des propositions suivantes décrit le mieux votre situation professionnelle actuelle ?",
			"it": "Quale delle seguenti opzioni descrive meglio la sua attuale situazione lavorativa?",
			"nl": "Welke van de volgende omschrijvingen past het best bij uw huidige arbeidssituatie?",
			"pt": "Qual das opções a seguir descreve melhor sua situação profissional atual?",
		},
		"Please indicate the age of each child under 18 living in your household.": {
			"es": "Indique la edad de cada menor de 18 años que vive en su hogar.",
			"de": "Bitte geben Sie das Alter jedes Kindes unter 18 Jahren in Ihrem Haushalt an.",
			"fr": "Veuillez indiquer l'âge de chaque enfant de moins de 18 ans vivant dans votre foyer.",
			"it": "Indichi l'età di ciascun figlio minore di 18 anni che vive nella sua famiglia.",
			"nl": "Geef de leeftijd aan van elk kind onder de 18 in uw huishouden.",
			"pt": "Indique a idade de cada criança menor de 18 anos que mora no seu domicílio.",
		},
		"Male": {
			"es": "Hombre", "de": "Männlich", "fr": "Homme", "it": "Uomo", "nl": "Man", "pt": "Masculino", "ja": "男性",
		},
		"Female": {
			"es": "Mujer", "de": "Weiblich", "fr": "Femme", "it": "Donna", "nl": "Vrouw", "pt": "Feminino", "ja": "女性",
		},
		"Prefer not to answer": {
			"es": "Prefiero no contestar", "de": "Keine Angabe", "fr": "Je préfère ne pas répondre",
			"it": "Preferisco non rispondere", "nl": "Zeg ik liever niet", "pt": "Prefiro não responder", "ja": "答えたくない",
		},
		"None of the above": {
			"es": "Ninguna de las anteriores", "de": "Nichts davon", "fr": "Aucune de ces réponses",
			"it": "Nessuna delle precedenti", "nl": "Geen van bovenstaande", "pt": "Nenhuma das anteriores", "ja": "上記のいずれでもない",
		},
		"Other": {
			"es": "Otro", "de": "Sonstiges", "fr": "Autre", "it": "Altro", "nl": "Anders", "pt": "Outro", "ja": "その他",
		},
		"Don't know": {
			"es": "No sé", "de": "Weiß nicht", "fr": "Je ne sais pas", "it": "Non so", "nl": "Weet ik niet", "pt": "Não sei", "ja": "わからない",
		},
		"Less than high school": {
			"es": "Sin estudios secundarios", "de": "Kein Schulabschluss", "fr": "Sans diplôme",
			"it": "Licenza elementare", "nl": "Basisonderwijs", "pt": "Ensino fundamental incompleto",
		},
		"High school graduate": {
			"es": "Educación secundaria", "de": "Abitur / Realschulabschluss", "fr": "Baccalauréat",
			"it": "Diploma di scuola superiore", "nl": "Middelbare school", "pt": "Ensino médio completo",
		},
		"Some college": {
			"es": "Estudios universitarios incompletos", "de": "Studium ohne Abschluss", "fr": "Études supérieures non terminées",
			"it": "Università non completata", "nl": "Hoger onderwijs zonder diploma", "pt": "Ensino superior incompleto",
		},
		"Bachelor's degree": {
			"es": "Grado universitario", "de": "Bachelor", "fr": "Licence", "it": "Laurea triennale", "nl": "Bachelor", "pt": "Graduação",
		},
		"Postgraduate degree": {
			"es": "Máster o doctorado", "de": "Master / Promotion", "fr": "Master ou doctorat",
			"it": "Laurea magistrale o dottorato", "nl": "Master of doctoraat", "pt": "Pós-graduação",
		},
		"Employed full-time": {
			"es": "Empleado a tiempo completo", "de": "Vollzeit berufstätig", "fr": "Salarié à temps plein",
			"it": "Occupato a tempo pieno", "nl": "Voltijd werkzaam", "pt": "Empregado em tempo integral",
		},
		"Employed part-time": {
			"es": "Empleado a tiempo parcial", "de": "Teilzeit berufstätig", "fr": "Salarié à temps partiel",
			"it": "Occupato part-time", "nl": "Deeltijd werkzaam", "pt": "Empregado em meio período",
		},
		"Self-employed": {
			"es": "Autónomo", "de": "Selbstständig", "fr": "Indépendant", "it": "Lavoratore autonomo", "nl": "Zelfstandige", "pt": "Autônomo",
		},
		"Unemployed": {
			"es": "Desempleado", "de": "Arbeitslos", "fr": "Sans emploi", "it": "Disoccupato", "nl": "Werkloos", "pt": "Desempregado",
		},
		"Student": {
			"es": "Estudiante", "de": "Student/in", "fr": "Étudiant", "it": "Studente", "nl": "Student", "pt": "Estudante",
		},
		"Retired": {
			"es": "Jubilado", "de": "Im Ruhestand", "fr": "Retraité", "it": "Pensionato", "nl": "Gepensioneerd", "pt": "Aposentado",
		},
		"Homemaker": {
			"es": "Amo/a de casa", "de": "Hausmann/Hausfrau", "fr": "Au foyer", "it": "Casalingo/a", "nl": "Huisman/huisvrouw", "pt": "Do lar",
		},
		"Child aged 0-5": {
			"es": "Niño de 0 a 5 años", "de": "Kind 0-5 Jahre", "fr": "Enfant de 0 à 5 ans",
			"it": "Bambino 0-5 anni", "nl": "Kind van 0-5 jaar", "pt": "Criança de 0 a 5 anos",
		},
		"Child aged 6-11": {
			"es": "Niño de 6 a 11 años", "de": "Kind 6-11 Jahre", "fr": "Enfant de 6 à 11 ans",
			"it": "Bambino 6-11 anni", "nl": "Kind van 6-11 jaar", "pt": "Criança de 6 a 11 anos",
		},
		"Child aged 12-17": {
			"es": "Niño de 12 a 17 años", "de": "Kind 12-17 Jahre", "fr": "Enfant de 12 à 17 ans",
			"it": "Ragazzo 12-17 anni", "nl": "Kind van 12-17 jaar", "pt": "Adolescente de 12 a 17 anos",
		},
		"No children under 18 in household": {
			"es": "No hay menores de 18 años en el hogar", "de": "Keine Kinder unter 18 im Haushalt",
			"fr": "Aucun enfant de moins de 18 ans dans le foyer", "it": "Nessun figlio minore di 18 anni in famiglia",
			"nl": "Geen kinderen onder de 18 in het huishouden", "pt": "Nenhuma criança menor de 18 anos no domicílio",
		},
	}
}

// translate returns text in lang, or text itself when the dictionary has no
// translation for it.
func (d dictionary) translate(text, lang string) string {
	if lang == "en" {
		return text
	}
	if t, ok := d[text][lang]; ok {
		return t
	}
	return text
}
